#!/usr/bin/env python3
"""Behaviour comparison of two tklab builds (issue 22, "What must not change").

Run through scripts/dev/compare_behaviour.sh, which checks the arguments; this
file does the work (python3, standard library only):

1. the same command lines with both builds' `tklab` (the CLI golden test
   cases read from tests/CMakeLists.txt, every registered kernel and lesson
   variant at a fixed seed with its trace, `tklab report` and
   `tklab export --chrome` of each trace, every lesson's solution and exercise
   through `tklab lesson`, and failure cases), each in the same scratch folder;
2. stdout, stderr, exit status and every file each command wrote, normalised
   (only what legitimately differs between two runs of one binary: see
   "Normalisation" below, N1 to N6) and compared byte for byte;
3. `bench/sim_speed` of both builds, interleaved, the medians and their ratio.
"""

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import time

REPO = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

# Small problem sizes per program, for the second run of each (every recording
# option on). A program not named here (a new one) still runs at its default
# size in every variant; add it here for the small run too.
SMALL_SIZES = {
    "gemm": "128",
    "gemm_hopper": "256x256x128",
    "layernorm": "64x256",
    "rotary": "1x2x32x64",
    "attention": "1x2x128x64",
    "lesson01": "64",
    "lesson02": "64",
    "lesson03": "32",
    "lesson04": "64",
    "lesson04_gemm": "64",
    "lesson05": "64",
    "lesson06": "128",
    "lesson07": "64",
    "lesson08": "128x64",
    "lesson09": "64",
    "lesson10": "64x128x128",
}
# A few more sizes where a program has another code path for them.
EXTRA_SIZES = {
    "attention": ["1x1x128x128"],  # D = 128
}
SEED = 7  # the fixed seed of the kernel runs (the CLI golden cases and lesson commands keep their own: 1)


class Case:
    """One command line, run the same way with both binaries."""

    def __init__(self, name, kind, args, truncate=None, lesson_trace=None, expect_rc=None):
        self.name = name  # unique; also the file name of its captured output
        self.kind = kind  # for the counts in the summary
        self.args = args  # after the tool
        self.truncate = truncate  # (in, out): out = first half of in, before the run (as run_case.cmake does)
        self.lesson_trace = lesson_trace  # file name `tklab lesson run` writes beside the binary
        self.expect_rc = expect_rc  # a CLI golden case's RC: a check that it ran as CTest runs it


def cmake_tokens(text):
    """Arguments of CMake commands: (command, [args]) in file order, with
    if()/else()/endif() kept as commands. Enough of CMake's syntax for
    tests/CMakeLists.txt: comments, quoted arguments with escapes, brackets."""
    calls = []
    i, n = 0, len(text)
    while i < n:
        m = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(").match(text, i)
        if not m:  # a comment, a blank line: on to the next line
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        cmd = m.group(1).lower()
        i = m.end()
        args, depth = [], 0
        while i < n:
            c = text[i]
            if c in " \t\r\n":
                i += 1
            elif c == "#":
                j = text.find("\n", i)
                i = n if j < 0 else j + 1
            elif c == "(":
                depth += 1
                args.append("(")
                i += 1
            elif c == ")":
                if depth == 0:
                    i += 1
                    break
                depth -= 1
                args.append(")")
                i += 1
            elif c == '"':
                i += 1
                s = []
                while i < n and text[i] != '"':
                    if text[i] == "\\" and i + 1 < n:
                        e = text[i + 1]
                        s.append({"n": "\n", "t": "\t", "r": "\r", ";": "\\;"}.get(e, e))
                        i += 2
                    else:
                        s.append(text[i])
                        i += 1
                i += 1
                args.append(("q", "".join(s)))
            else:
                j = i
                while j < n and text[j] not in ' \t\r\n()#"':
                    j += 1
                args.append(text[i:j])
                i = j
        calls.append((cmd, args))
    return calls


def cli_golden_cases(with_viewer):
    """The `tklab_cli_test(...)` cases of tests/CMakeLists.txt, in file order
    (the order CTest's fixtures need: runs that write traces come first),
    with their exact arguments. Viewer cases only when both builds have
    tklab_view; `view_not_built` only when neither has."""
    path = os.path.join(REPO, "tests", "CMakeLists.txt")
    with open(path) as f:
        calls = cmake_tokens(f.read())
    variables = {
        "CMAKE_CURRENT_SOURCE_DIR": os.path.join(REPO, "tests"),
        "golden": os.path.join(REPO, "tests", "cli", "golden"),
    }

    def expand(a):
        s = a[1] if isinstance(a, tuple) else a
        s = re.sub(r"\$\{(\w+)\}", lambda m: variables.get(m.group(1), m.group(0)), s)
        return s

    cases, stack = [], []
    keywords = {"RC", "GOLDEN", "STDERR", "STDOUT", "JSON_FILE", "JSON_KEY", "ARGS", "TRUNCATE"}
    for cmd, args in calls:
        if cmd == "if":
            stack.append([a for a in args if isinstance(a, str)])
        elif cmd == "else" and stack:
            stack[-1] = ["NOT"] + stack[-1]
        elif cmd == "endif" and stack:
            stack.pop()
        elif cmd == "tklab_cli_test":
            conds = [" ".join(c) for c in stack]
            if "TKLAB_WITH_VIEWER" in conds and not with_viewer:
                continue
            if "NOT TKLAB_WITH_VIEWER" in conds and with_viewer:
                continue
            name = expand(args[0])
            fields, key = {}, None
            for a in args[1:]:
                if not isinstance(a, tuple) and a in keywords:
                    key = a
                    fields.setdefault(key, [])
                    continue
                if key:
                    fields[key].append(expand(a))
            trunc = fields.get("TRUNCATE")
            rc = fields.get("RC")
            cases.append(Case("cli/" + name, "cli golden", fields.get("ARGS", []),
                              truncate=tuple(trunc) if trunc else None, expect_rc=rc[0] if rc else None))
    if len(cases) < 20:
        raise SystemExit("compare: found only %d tklab_cli_test cases in %s: its format changed?" % (len(cases), path))
    return cases


def parse_list(text):
    """`tklab list`: [(name, kind, [variants])]."""
    out, kind, name = [], None, None
    for line in text.splitlines():
        if line in ("kernels:", "lessons:"):
            kind = line[:-2]
            continue
        m = re.match(r"^  ([a-z0-9_]+) ", line)
        if m:
            name = m.group(1)
            continue
        m = re.search(r"variants ([a-z0-9_|]+);", line)
        if m and name:
            out.append((name, kind, m.group(1).split("|")))
            name = None
    return out


def parse_lessons(text):
    """`tklab lesson list`: the lesson numbers."""
    return [int(m.group(1)) for m in re.finditer(r"^\s*(\d+)  ", text, re.M)]


def lesson_parts(tool, n):
    """How many parts lesson N has, from the message of `--part 99`
    ("lesson 4 has 2 parts; ..." or "lesson 1 has one part; ...")."""
    p = subprocess.run([tool, "lesson", "hint", str(n), "--part", "99"], capture_output=True, text=True, env=base_env("/dev/null"))
    m = re.search(r"has (\d+|one) parts?", p.stderr)
    return 1 if not m or m.group(1) == "one" else int(m.group(1))


def build_cases(tool, with_viewer):
    env = base_env(None)
    listing = subprocess.run([tool, "list"], capture_output=True, text=True, env=env).stdout
    programs = parse_list(listing)
    if len(programs) < 5:
        raise SystemExit("compare: `tklab list` named only %d programs: its format changed?" % len(programs))
    lessons = parse_lessons(subprocess.run([tool, "lesson", "list"], capture_output=True, text=True, env=env).stdout)
    cases = cli_golden_cases(with_viewer)

    # Every command's help (the text of the interface itself).
    for sub in [[], ["list"], ["run"], ["report"], ["export"], ["fidelity"], ["lesson"], ["lesson", "list"],
                ["lesson", "run"], ["lesson", "check"], ["lesson", "hint"]]:
        cases.append(Case("help/" + ("-".join(sub) or "tklab"), "help", sub + ["--help"]))
    cases.append(Case("help/version", "help", ["--version"]))

    def run_and_read(tag, kind, prog, variant, extra, trace, chrome_args):
        cases.append(Case("run/%s/%s.%s" % (tag, prog, variant), kind,
                          ["run", prog, "--variant", variant] + extra + ["--trace", trace]))
        cases.append(Case("report/%s/%s.%s" % (tag, prog, variant), "report", ["report", trace]))
        out = trace.rsplit(".", 1)[0] + ".chrome.json"
        cases.append(Case("export/%s/%s.%s" % (tag, prog, variant), "export chrome",
                          ["export", "--chrome"] + chrome_args + [trace, out]))

    for prog, kind, variants in programs:
        # Default size, each variant alone, a fixed seed, a JSON trace; its
        # Chrome export without instructions (the full one of these is tens of MB).
        for v in variants:
            run_and_read("default", kind + " program run", prog, v, ["--seed", str(SEED)],
                         "d.%s.%s.json" % (prog, v), ["--no-instructions"])
        # A small size, every variant in one run, every recording option,
        # two host threads, a CBOR trace, the full Chrome export.
        sizes = ([SMALL_SIZES[prog]] if prog in SMALL_SIZES else []) + EXTRA_SIZES.get(prog, [])
        for k, size in enumerate(sizes):
            tag = "small" if k == 0 else "size" + size
            run_and_read(tag, kind + " program run", prog, "all",
                         ["--size", size, "--seed", str(SEED), "--timeline-blocks", "all", "--all-lanes", "--snapshots",
                          "--threads", "2", "--top", "3"],
                         "s%d.%s.all.cbor" % (k, prog), [])
        # Failure cases: a lesson's exercise has holes, so it fails; with each
        # bug finder alone and with none, its messages and traces.
        if "exercise" in variants:
            for checks in ["none", "races", "uninit", "sync"]:
                cases.append(Case("fail/%s.exercise.checks-%s" % (prog, checks), "failure",
                                  ["run", prog, "--variant", "exercise", "--checks", checks,
                                   "--trace", "f.%s.%s.cbor" % (prog, checks)]))
    # A few single options of `run` on the first kernel.
    first = programs[0][0]
    cases.append(Case("run/options/%s.no-check" % first, "option", ["run", first, "--no-check", "--size", "128"]))
    cases.append(Case("run/options/%s.color" % first, "option", ["run", first, "--color", "always", "--size", "128"]))
    cases.append(Case("run/options/%s.timeline-list" % first, "option",
                      ["run", first, "--timeline-blocks", "0,2-3", "--size", "128", "--trace", "o.timeline.json"]))
    cases.append(Case("run/options/%s.bad-checks" % first, "failure", ["run", first, "--checks", "speed"]))
    cases.append(Case("run/options/%s.bad-size" % first, "failure", ["run", first, "--size", "64x"]))

    # The workshop's commands, every lesson: solution and exercise, checked
    # and run (its trace, written beside the binary, then reported), hints,
    # and the second part (a usage error for a lesson in one part).
    cases.append(Case("lesson/list", "lesson", ["lesson", "list"]))
    for n in lessons:
        nparts = lesson_parts(tool, n)
        for sol in (True, False):
            who = "solution" if sol else "exercise"
            flag = ["--solution"] if sol else []
            cases.append(Case("lesson/check-%d-%s" % (n, who), "lesson check", ["lesson", "check", str(n)] + flag + ["--no-build"]))
            for part in [None] + (list(range(1, nparts + 1)) if nparts > 1 else []):
                pflag = ["--part", str(part)] if part else []
                trace = "lesson%d%s_%s.cbor" % (n, "_part%d" % part if part else "", who)
                tag = "%d%s-%s" % (n, "-part%d" % part if part else "", who)
                cases.append(Case("lesson/run-" + tag, "lesson command run",
                                  ["lesson", "run", str(n)] + pflag + flag + ["--no-build", "--no-view"], lesson_trace=trace))
                cases.append(Case("lesson/report-" + tag, "report", ["report", "build." + trace]))
        for part in range(1, nparts + 1) if nparts > 1 else []:
            cases.append(Case("lesson/check-%d-solution-part%d" % (n, part), "lesson check",
                              ["lesson", "check", str(n), "--part", str(part), "--solution", "--no-build"]))
        cases.append(Case("lesson/check-%d-no-part-%d" % (n, nparts + 1), "failure",
                          ["lesson", "check", str(n), "--part", str(nparts + 1), "--solution", "--no-build"]))
        cases.append(Case("lesson/check-%d-solution-seed3" % n, "lesson check",
                          ["lesson", "check", str(n), "--solution", "--seed", "3", "--no-build"]))
        cases.append(Case("lesson/hint-%d" % n, "lesson hint", ["lesson", "hint", str(n)]))
    names = [c.name for c in cases]
    dup = {x for x in names if names.count(x) > 1}
    if dup:
        raise SystemExit("compare: duplicate case names: %s" % sorted(dup))
    return cases


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def base_env(progress):
    env = dict(os.environ)
    for k in ("DISPLAY", "WAYLAND_DISPLAY", "TKLAB_SIM_THREADS", "CLICOLOR_FORCE"):
        env.pop(k, None)
    env.update({"NO_COLOR": "1", "TERM": "dumb", "LC_ALL": "C", "TZ": "UTC"})
    if progress:
        env["TKLAB_LESSON_PROGRESS"] = progress  # never the build folder's own file
    return env


def safe(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name.replace("/", "__"))


def snapshot(folder):
    out = {}
    for e in os.scandir(folder):
        if e.is_file():
            st = e.stat()
            out[e.name] = (st.st_mtime_ns, st.st_size, st.st_ino)
    return out


def run_side(label, build, cases, out_dir, work):
    """Runs every case with BUILD/tklab in WORK (the same path for both
    builds), then moves what it captured to OUT/LABEL. Returns
    {case name: [output file names]}."""
    tool = os.path.join(build, "tklab")
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    cap = os.path.join(work, "_captured")
    os.makedirs(cap)
    # `tklab lesson run` writes its trace beside the binary: keep any such
    # file already there and put it back afterwards.
    backup = {}
    for c in cases:
        if c.lesson_trace:
            p = os.path.join(build, c.lesson_trace)
            if p not in backup:
                backup[p] = open(p, "rb").read() if os.path.exists(p) else None
    outputs = {}
    t0 = time.time()
    try:
        for c in cases:
            if c.truncate:
                src, dst = (os.path.join(work, x) for x in c.truncate)
                data = open(src, "rb").read() if os.path.exists(src) else b""
                with open(dst, "wb") as f:
                    f.write(data[: len(data) // 2])
            progress = os.path.join(work, "progress." + hashlib.md5(c.name.encode()).hexdigest() + ".json")
            if c.lesson_trace:
                lt = os.path.join(build, c.lesson_trace)
                if os.path.exists(lt):
                    os.remove(lt)
            before = snapshot(work)
            try:
                p = subprocess.run([tool] + c.args, cwd=work, env=base_env(progress), capture_output=True, timeout=600)
                rc, so, se = p.returncode, p.stdout, p.stderr
            except subprocess.TimeoutExpired as e:
                rc, so, se = "timeout", e.stdout or b"", e.stderr or b""
            after = snapshot(work)
            files = sorted(k for k, v in after.items() if before.get(k) != v)
            if c.lesson_trace:
                lt = os.path.join(build, c.lesson_trace)
                if os.path.exists(lt):
                    shutil.copy2(lt, os.path.join(work, "build." + c.lesson_trace))
                    os.remove(lt)
                    files.append("build." + c.lesson_trace)
            base = os.path.join(cap, safe(c.name))
            with open(base + ".cmd", "w") as f:
                f.write("tklab " + " ".join(shlex.quote(a) for a in c.args) + "\n")
            for ext, data in (("stdout", so), ("stderr", se), ("rc", ("%s\n" % rc).encode())):
                with open(base + "." + ext, "wb") as f:
                    f.write(data)
            outputs[c.name] = files
    finally:
        for p, data in backup.items():
            if data is None:
                if os.path.exists(p):
                    os.remove(p)
            else:
                with open(p, "wb") as f:
                    f.write(data)
    with open(os.path.join(cap, "manifest.json"), "w") as f:
        json.dump({"build": build, "outputs": outputs}, f, indent=1, sort_keys=True)
    dest = os.path.join(out_dir, label)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.move(work, dest)
    return outputs, time.time() - t0


# ---------------------------------------------------------------------------
# CBOR as text (to normalise and to show the first differing line)
# ---------------------------------------------------------------------------

class Cut(Exception):
    pass


def cbor_text(data):
    """A CBOR file as text that keeps everything its bytes say: each item's
    value, and its encoding wherever that is not the shortest (a float's
    width always, `_N` on a longer head than needed, `_` on an indefinite
    length). Each element of an indefinite-length array (the trace's records)
    and each top-level key gets its own line. A file cut short ends with the
    byte offset where it stops and the bytes left."""
    out = []
    pos = [0]
    started = [0]  # where the last item began: when the data ends, the incomplete innermost one

    def take(k):
        if pos[0] + k > len(data):
            raise Cut()
        b = data[pos[0]:pos[0] + k]
        pos[0] += k
        return b

    def head():
        ib = take(1)[0]
        major, ai = ib >> 5, ib & 31
        if ai < 24:
            return major, ai, ai, ""
        if ai in (24, 25, 26, 27):
            size = 1 << (ai - 24)
            b = take(size)
            val = int.from_bytes(b, "big")
            if major == 7:
                return major, ai, b, ""
            minimal = {24: val >= 24, 25: val >= 256, 26: val >= 65536, 27: val >= 1 << 32}[ai]
            return major, ai, val, "" if minimal else "_%d" % (ai - 24)
        if ai == 31:
            return major, ai, None, "_"
        raise ValueError("bad additional info %d at byte %d" % (ai, pos[0] - 1))

    def item(depth):
        started[0] = pos[0]
        major, ai, val, enc = head()
        if major == 0:
            out.append("%d%s" % (val, enc))
        elif major == 1:
            out.append("%d%s" % (-1 - val, enc))
        elif major in (2, 3):
            if val is None:
                out.append("(_ ")
                first = True
                while True:
                    if pos[0] < len(data) and data[pos[0]] == 0xFF:
                        take(1)
                        break
                    if not first:
                        out.append(", ")
                    first = False
                    item(depth + 1)
                out.append(")")
            else:
                b = take(val)
                if major == 2:
                    out.append("h'%s'%s" % (b.hex(), enc))
                else:
                    out.append(json_str(b.decode("utf-8", "surrogateescape")) + enc)
        elif major == 4:
            indefinite = val is None
            out.append("[_ " if indefinite else "[" + (enc and enc + " "))
            k = 0
            while True:
                if indefinite:
                    if pos[0] < len(data) and data[pos[0]] == 0xFF:
                        take(1)
                        break
                elif k == val:
                    break
                if indefinite:
                    out.append("\n  ")  # one record a line
                elif k:
                    out.append(", ")
                item(depth + 1)
                k += 1
            out.append("\n]" if indefinite else "]")
        elif major == 5:
            indefinite = val is None
            out.append("{_ " if indefinite else "{" + (enc and enc + " "))
            k = 0
            while True:
                if indefinite:
                    if pos[0] < len(data) and data[pos[0]] == 0xFF:
                        take(1)
                        break
                elif k == val:
                    break
                if depth == 0:
                    out.append("\n ")
                elif k:
                    out.append(", ")
                item(depth + 1)
                out.append(": ")
                item(depth + 1)
                k += 1
            out.append("\n}" if depth == 0 else "}")
        elif major == 6:
            out.append("%d%s(" % (val, enc))
            item(depth + 1)
            out.append(")")
        else:
            if ai < 24 or ai == 24:
                v = val if ai < 24 else val[0]
                out.append({20: "false", 21: "true", 22: "null", 23: "undefined"}.get(v, "simple(%d)" % v))
            elif ai in (25, 26, 27):
                fmt = {25: ">e", 26: ">f", 27: ">d"}[ai]
                x = struct.unpack(fmt, val)[0]
                s = repr(x) if x == x else "nan<%s>" % val.hex()
                out.append("%s_f%d" % (s, {25: 16, 26: 32, 27: 64}[ai]))
            elif ai == 31:
                out.append("<break>")
    try:
        while pos[0] < len(data):
            item(0)
            out.append("\n")
    except Cut:
        out.append("\n<cut short: %d bytes; an item begun at byte %d is incomplete: %s>\n"
                   % (len(data), started[0], data[started[0]:].hex()))
    except (ValueError, UnicodeError) as e:
        out.append("\n<not CBOR from byte %d: %s; bytes: %s>\n" % (pos[0], e, data[pos[0]:].hex()))
    return "".join(out)


def json_str(s):
    r = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            r.append('\\"')
        elif ch == "\\":
            r.append("\\\\")
        elif ch == "\n":
            r.append("\\n")
        elif o < 0x20 or 0xDC80 <= o <= 0xDCFF:
            r.append("\\u%04x" % o)
        else:
            r.append(ch)
    r.append('"')
    return "".join(r)


# ---------------------------------------------------------------------------
# Normalisation: ONLY what differs between two runs of one binary on the
# same command line (found by running one build twice and diffing), or
# between two builds that sit in different folders:
#
#  N1 wall_seconds: every launch's summary record in a trace holds the wall
#     time the simulator took ("wall_seconds": 0.0092... in JSON, a float64
#     in CBOR). Replaced by <wall_seconds>.
#  N2 `tklab: simulated N warp instructions in 0.01 s` on stderr: the same
#     wall time, and the memory peak and estimate after it (they depend on
#     the machine). The seconds and memory are replaced; N is kept.
#  N3 `tklab: wrote X.json (139.3 KB, 64.6 bytes per warp instruction)`: a
#     JSON trace's size moves with N1's number of digits (0.01357683 vs
#     0.009228341). For .json traces only; the trace itself is compared, so
#     a real change of its size still shows. CBOR traces keep the figures
#     (N1's float64 is always 9 bytes).
#  N4 `"load_seconds": ...` in `tklab view --print-state`: the viewer's time
#     to load the traces.
#  N5 absolute paths: each build folder (help's `Usage: /path/tklab`, lesson
#     traces written beside the binary) becomes <BUILD>, each build's source
#     tree (compiled in: messages name kernel files by absolute path) <SRC>,
#     for the two builds alike. Where the two builds' paths differ in length,
#     the report's wrapped message lines (6-space indent, wrapped at a fixed
#     width) wrap at other places: then, and only then, such continuation
#     lines are joined on both sides before comparing (N5b): the report
#     wraps at a space and drops it, so joining with one space gives the
#     same text whatever the width was.
#  N6 (opt-in, --mask-source-text): a trace embeds the source files it ran
#     (kernels, lessons, tk/ headers) with their hash. A commit that edits
#     only comments of such a file changes the trace without changing
#     behaviour; with this flag the text and hash are masked. Off by
#     default: by default a trace must be byte-identical.
#
# Outputs are compared as bytes after these substitutions; nothing else is
# touched (no sorting, no whitespace changes, no float rounding).
# ---------------------------------------------------------------------------

class Normaliser:
    def __init__(self, builds, sources, mask_source_text=False, without=()):
        # Longest first: a build folder usually lies inside its source tree.
        pairs = [(b, "<BUILD>") for b in builds] + [(s, "<SRC>") for s in sources if s]
        self.paths = sorted(set(pairs), key=lambda p: -len(p[0]))
        # Only the source trees' paths appear in wrapped report lines (messages
        # that name a kernel file); the build folders' only in unwrapped ones.
        self.rewrap = len({len(s) for s in sources if s}) > 1
        self.mask_source_text = mask_source_text
        self.on = {k: k not in without for k in ("N1", "N2", "N3", "N4", "N5", "N5b")}

    def text(self, s, fname, raw=False):
        if raw:
            return s
        on = self.on
        # N1 (JSON traces and the CBOR text alike)
        if on["N1"]:
            s = re.sub(r'("wall_seconds":\s*)-?[0-9][0-9.eE+-]*(_f(16|32|64))?', r"\1<wall_seconds>", s)
        # N2
        if on["N2"]:
            s = re.sub(r"(simulated \d+ warp instructions in )[0-9.]+( s)", r"\1<seconds>\2", s)
            s = re.sub(r"; memory peak [^\n]*", "; memory peak <bytes>", s)
        # N3
        if on["N3"]:
            s = re.sub(r"(wrote \S+\.json \()[0-9.]+ (?:bytes|KB|MB), [0-9.]+( bytes per warp instruction\))",
                       r"\1<size of a JSON trace>, <bytes>\2", s)
        # N4
        if on["N4"]:
            s = re.sub(r'("load_seconds":\s*)-?[0-9][0-9.eE+-]*', r"\1<load_seconds>", s)
        # N5
        if on["N5"]:
            for p, rep in self.paths:
                s = s.replace(p, rep)
        if self.rewrap and on["N5b"]:
            s = re.sub(r"\n {6}(?=\S)", " ", s)  # N5b: every 6-space continuation joined to the line before
        # N6
        if self.mask_source_text:
            s = re.sub(r'("hash":\s*)"fnv1a64:[0-9a-f]+"', r'\1"<hash>"', s)
            s = re.sub(r'("text":\s*)"(?:[^"\\]|\\.)*"', r'\1"<source text>"', s)
        return s

    def file(self, path, raw=False):
        data = open(path, "rb").read()
        if path.endswith(".cbor"):
            if raw:
                return data
            return self.text(cbor_text(data), path).encode("utf-8", "surrogateescape")
        if raw:
            return data
        s = data.decode("utf-8", "surrogateescape")
        return self.text(s, path).encode("utf-8", "surrogateescape")


def first_difference(a, b):
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else None
        y = lb[i] if i < len(lb) else None
        if x != y:
            def show(v):
                if v is None:
                    return "(no such line)"
                v = v.decode("utf-8", "replace")
                # long lines (a trace record): show around the first differing column
                if x is not None and y is not None and len(v) > 160:
                    col = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), min(len(x), len(y)))
                    start = max(0, col - 60)
                    v = ("..." if start else "") + v[start:start + 150] + "..."
                return repr(v)
            return "line %d: before %s | after %s" % (i + 1, show(x), show(y))
    return "same lines, other bytes"


# ---------------------------------------------------------------------------
# sim_speed
# ---------------------------------------------------------------------------

def bench(before, after, reps, sizes):
    print("\nbench: bench/sim_speed %s, %d runs of each build, interleaved (before, after, before, ...)" % (" ".join(sizes), reps))
    times = {"before": {}, "after": {}}
    for r in range(reps):
        for label, build in (("before", before), ("after", after)):
            p = subprocess.run([os.path.join(build, "bench", "sim_speed")] + sizes, capture_output=True, text=True)
            if p.returncode != 0:
                print("bench: %s/bench/sim_speed failed (exit %d):\n%s%s" % (build, p.returncode, p.stdout, p.stderr))
                return False
            row = {}
            for line in p.stdout.splitlines():
                f = line.split()
                if len(f) >= 2 and f[0].isdigit() and f[0] in sizes:
                    row[f[0]] = float(f[1])
            if set(row) != set(sizes):
                print("bench: cannot read sim_speed's output:\n" + p.stdout)
                return False
            for s, v in row.items():
                times[label].setdefault(s, []).append(v)
            print("bench: run %d %-6s %s" % (r + 1, label, "  ".join("%s: %.3f s" % (s, row[s]) for s in sizes)))
    ok = True
    tot = {}
    for label in ("before", "after"):
        tot[label] = sum(statistics.median(times[label][s]) for s in sizes)
    for s in sizes:
        mb, ma = statistics.median(times["before"][s]), statistics.median(times["after"][s])
        print("bench: size %-5s median sim s  before %.3f  after %.3f  after/before %.3f" % (s, mb, ma, ma / mb))
    ratio = tot["after"] / tot["before"]
    ok = ratio <= 1.05
    print("bench: total of medians  before %.3f s  after %.3f s  after/before %.3f: %s" %
          (tot["before"], tot["after"], ratio,
           "within 5% of before" if ok else "SLOWER than before by %.1f%% (more than 5%%)" % ((ratio - 1) * 100)))
    return ok


# ---------------------------------------------------------------------------

def source_dir(build):
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith("CMAKE_HOME_DIRECTORY:"):
                    return os.path.realpath(line.split("=", 1)[1].strip())
    except OSError:
        pass
    return None


def main():
    ap = argparse.ArgumentParser(prog="compare_behaviour.sh")
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("out", nargs="?", default="/tmp/compare-out")
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--bench-only", action="store_true")
    ap.add_argument("--bench-reps", type=int, default=5)
    ap.add_argument("--bench-sizes", default="256 512")
    ap.add_argument("--no-normalise", action="store_true")
    ap.add_argument("--mask-source-text", action="store_true")
    ap.add_argument("--without", default="", help="normalisations to leave out, e.g. N1,N3")
    ap.add_argument("--only", default="")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--compare-only", action="store_true")
    a = ap.parse_args()

    before, after = os.path.realpath(a.before), os.path.realpath(a.after)
    out = os.path.realpath(a.out)
    t_start = time.time()
    status = 0
    if not a.bench_only:
        with_viewer = all(os.access(os.path.join(b, "tklab_view"), os.X_OK) for b in (before, after))
        cases = build_cases(os.path.join(before, "tklab"), with_viewer)
        if a.only:
            cases = [c for c in cases if re.search(a.only, c.name)]
        os.makedirs(out, exist_ok=True)
        work = os.path.join(out, "work")  # the same folder for both builds
        without = [w for w in a.without.split(",") if w]
        bad = [w for w in without if w not in ("N1", "N2", "N3", "N4", "N5", "N5b")]
        if bad:
            raise SystemExit("compare: --without: no normalisation %s (N1 to N5, N5b)" % ",".join(bad))
        norm = Normaliser([before, after], [source_dir(before), source_dir(after)], a.mask_source_text, without)
        print("compare: %d cases; before %s, after %s; outputs in %s" % (len(cases), before, after, out))
        if norm.rewrap and not a.no_normalise:
            print("compare: the two builds' source trees' paths differ in length: wrapped report lines are joined before comparing (N5b)")
        files = {}
        for label, build in (("before", before), ("after", after)):
            if a.compare_only:  # what an earlier run left in OUT (edited, perhaps)
                with open(os.path.join(out, label, "_captured", "manifest.json")) as f:
                    files[label] = json.load(f)["outputs"]
                missing = [c.name for c in cases if c.name not in files[label]]
                if missing:
                    raise SystemExit("compare: %s/%s has no outputs of %d cases (%s...): run without --compare-only"
                                     % (out, label, len(missing), missing[0]))
                continue
            files[label], secs = run_side(label, build, cases, out, work)
            print("compare: ran %d cases with %s/tklab in %.1f s" % (len(cases), build, secs))
        for c in cases:  # ran as CTest runs it? (a difference here is no failure of the comparison)
            if c.expect_rc is not None:
                got = open(os.path.join(out, "before", "_captured", safe(c.name) + ".rc")).read().strip()
                if got != c.expect_rc:
                    print("note: %s exited with %s before, tests/CMakeLists.txt expects %s" % (c.name, got, c.expect_rc))
        for label in ("before", "after"):
            shutil.rmtree(os.path.join(out, label + ".normalised"), ignore_errors=True)
        same = diff = 0
        by_kind = {}
        for c in cases:
            parts = ["stdout", "stderr", "rc"]
            names = sorted(set(files["before"][c.name]) | set(files["after"][c.name]))
            problems = []
            for part in parts + names:
                got = {}
                for label in ("before", "after"):
                    if part in parts:
                        p = os.path.join(out, label, "_captured", safe(c.name) + "." + part)
                        data = open(p, "rb").read()
                        if not a.no_normalise:
                            data = norm.text(data.decode("utf-8", "surrogateescape"), p).encode("utf-8", "surrogateescape")
                        kept = safe(c.name) + "." + part
                    elif part in files[label][c.name]:
                        data = norm.file(os.path.join(out, label, part), raw=a.no_normalise)
                        kept = part + (".txt" if part.endswith(".cbor") and not a.no_normalise else "")
                    else:
                        got[label] = None
                        continue
                    got[label] = data
                    nd = os.path.join(out, label + ".normalised")
                    os.makedirs(nd, exist_ok=True)
                    with open(os.path.join(nd, kept), "wb") as f:
                        f.write(data)
                if got["before"] is None or got["after"] is None:
                    problems.append((part, "%s: written only %s" % (part, "before" if got["after"] is None else "after")))
                elif got["before"] != got["after"]:
                    problems.append((part, "%s %s" % (part, first_difference(got["before"], got["after"]))))
            k = by_kind.setdefault(c.kind, [0, 0])
            if problems:
                diff += 1
                k[1] += 1
                print("DIFFERENT %s (tklab %s): %s%s" % (c.name, " ".join(shlex.quote(x) for x in c.args), problems[0][1],
                                                          " (%s differ%s too)" % (", ".join(p[0] for p in problems[1:]),
                                                                                  "s" if len(problems) == 2 else "")
                                                          if len(problems) > 1 else ""))
            else:
                same += 1
                k[0] += 1
                if not a.quiet:
                    print("same      %s%s" % (c.name, " (+ %s)" % ", ".join(names) if names else ""))
        print("compare: by kind: " + ", ".join("%s %d/%d" % (k, v[0], v[0] + v[1]) for k, v in by_kind.items()))
        print("compare: normalised outputs: diff -r %s/before.normalised %s/after.normalised" % (out, out))
        print("compare: %d same, %d different" % (same, diff))
        if diff:
            status = 1
    if not a.no_bench:
        if not bench(before, after, a.bench_reps, a.bench_sizes.split()):
            status = status or 3
    print("compare: done in %.0f s" % (time.time() - t_start))
    return status


if __name__ == "__main__":
    sys.exit(main())
