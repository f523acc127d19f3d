#!/usr/bin/env python3
"""Writes the measured figures of a calibration run (scripts/gpu/calibrate.sh's
JSON) into a cost model (sim/arch/NAME.json): each field the simulator reads
gets the measured value (converted as the table below says), and the model's
"measured" object records, per field, the calibration figure it came from,
its method, the GPU and the date. Fields no microbenchmark measures keep their
value and are listed under "estimated". The launch figures come from
scripts/gpu/launch_overhead.sh's JSON, results/launch_overhead_h100.json
(launch_overhead_NAME.json beside the calibration's), when it is there, and
the register arithmetic from calibration_alu_NAME.json beside it, and the
instructions around tile ops and the shared-memory queue's depth from
calibration_overhead_NAME.json beside it, and the store bandwidths from
calibration_stores_NAME.json beside it, and the clock of launches that use the
tensor cores from kernel_clock_NAME.txt beside it (scripts/gpu/l1_hits.sh with
CLOCK_CONTROL=none over the fidelity launches).
  scripts/dev/arch_from_calibration.py results/calibration_h100.json sim/arch/h100.json
tests/sim/test_cost_model.cpp checks that the two files agree."""
import json
import os
import sys

# field -> (calibration figure, conversion, why the conversion)
FIELDS = {
    "clock_mhz": ("sm_clock_mhz", lambda v: round(v), "the SM clock under load"),
    "shared.latency": ("shared.ld_latency_4B", lambda v: round(v) - 1,
                       "the model adds one wavefront's cycle before the latency"),
    "shared.cycles_per_wavefront": ("shared.ld_cycles_per_wavefront_4B", lambda v: round(v), ""),
    "ldmatrix.latency": ("ldmatrix.latency_x4", lambda v: round(v) - 4,
                         "the model adds the x4's four wavefronts before the latency"),
    "shfl.latency": ("shfl.latency", lambda v: round(v), ""),
    "mma_m16n8k16.latency": ("mma_m16n8k16.latency", lambda v: round(v), ""),
    "mma_m16n8k16.pipe_cycles": ("mma_m16n8k16.pipe_cycles_4w_per_smsp", lambda v: round(v),
                                 "a sub-partition's tensor pipe with its warps all issuing"),
    "barrier.latency": ("barrier.bar_sync_4w", lambda v: round(v), ""),
    "mbarrier.latency": ("mbarrier.arrive_wait_roundtrip", lambda v: round(v / 2),
                         "the model charges it twice: at the arrive and at the release"),
    "global.latency": ("global.latency_l2_hit", lambda v: round(v), "a load that hits in L2"),
    "global.dram_latency": ("global.latency_dram", lambda v: round(v), "a load that misses L2"),
    "global.l1_latency": ("global.latency_l1_hit", lambda v: round(v), "a load that hits in L1"),
    "cp_async.latency": ("cp_async.latency_l2", lambda v: round(v), ""),
    "cp_async.dram_latency": ("cp_async.latency_dram", lambda v: round(v), ""),
    "tma.bytes_per_cycle": ("tma.load_bytes_per_cycle_one_sm_l2_4issuers", lambda v: round(v),
                            "copies in flight together, one SM alone"),
    "launch.overhead_cycles": ("launch.empty_kernel_cupti_cycles_1_blocks", lambda v: round(v),
                               "an empty one-block kernel's time as the GPU traces' kernel timing (CUPTI) measures it"),
    "launch.dispatch_cycles_per_block": ("launch.dispatch_cycles_per_block", lambda v: round(v, 3),
                                         "what each block more adds to an empty kernel's time"),
    "wgmma.fma_per_cycle": ("wgmma.m64n128k16_fma_per_cycle_1wg", lambda v: int(round(v / 64) * 64), ""),
    "memory.l2_bytes_per_cycle_per_sm": ("global.l2_bytes_per_cycle_per_sm", lambda v: round(v, 2),
                                         "every SM reading at once: the L2's bandwidth over the SMs"),
    "memory.l2_bytes_per_cycle_one_sm": ("global.l2_bytes_per_cycle_one_sm", lambda v: round(v, 2), "one SM alone"),
    "memory.tma_l2_bytes_per_cycle_per_sm": ("tma.load_bytes_per_cycle_all_sms_l2", lambda v: round(v, 2),
                                             "every SM loading boxes with TMA at once: L2's bandwidth over the SMs for bulk copies "
                                             "(one issuing thread per SM, which one SM alone matches: a lower bound)"),
    "memory.dram_bytes_per_cycle_per_sm": ("global.dram_bytes_per_cycle_per_sm", lambda v: round(v, 2),
                                           "every SM reading at once: DRAM's bandwidth over the SMs"),
    "memory.dram_bytes_per_cycle_one_sm": ("global.dram_bytes_per_cycle_one_sm", lambda v: round(v, 2), "one SM alone"),
}
# L2's rate for bulk copies with four issuers on every SM (bench/calibrate/async.cu),
# where a run has it: one issuer per SM moves no more than one SM alone does.
TMA_FIELDS = {
    "memory.tma_l2_bytes_per_cycle_per_sm": ("tma.load_bytes_per_cycle_all_sms_l2_4issuers", lambda v: round(v, 2),
                                             "every SM loading boxes with TMA at once, four issuing threads each: L2's bandwidth over the SMs for bulk copies"),
}
# The constant cache's miss at a launch's first blocks (bench/calibrate/frontend.cu,
# in calibration_frontend_NAME.json beside the calibration), where a run has it;
# until then the model's value is estimated from the GPU's PC samples
# (scripts/fidelity/constant_miss.sh) and listed as estimated.
CONSTANT_FIELDS = {
    "constant.miss_cycles": ("constant.parameter_first_use_cycles", lambda v: round(v),
                             "a kernel parameter's first use at the kernel's start, one warp: the wait for the constant cache"),
}
# A later wave's block: the SM's gap between a block's end and the next one's
# start in its place (scripts/gpu/launch_overhead.sh, block_gaps), where the
# launch figures have it.
TURNAROUND_FIELDS = {
    "launch.block_turnaround_cycles": ("launch.block_turnaround_cycles_128_threads", lambda v: round(v),
                                       "one block of 128 threads per SM, 8 waves: the next block's first clock less the last of the one before "
                                       "(512 threads: the same within a cycle)"),
}
# The store bandwidths and the load/store unit's rate (bench/calibrate/global.cu,
# run_stores, in calibration_stores_NAME.json or calibration_memory_NAME.json
# beside the calibration, or in a whole run's own file).
STORE_FIELDS = {
    "memory.l2_write_bytes_per_cycle_per_sm": ("global.l2_write_bytes_per_cycle_per_sm", lambda v: round(v, 2),
                                               "every SM writing at once, the data in L2: L2's write bandwidth over the SMs"),
    "memory.l2_write_bytes_per_cycle_one_sm": ("global.l2_write_bytes_per_cycle_one_sm", lambda v: round(v, 2),
                                               "one SM alone writing (the data in L2): a quarter of its read rate"),
    "memory.dram_write_bytes_per_cycle_per_sm": ("global.write_bytes_per_cycle_per_sm_2048MiB", lambda v: round(v, 2),
                                                 "every SM writing 2 GiB once: DRAM's write bandwidth over the SMs"),
}
# The load/store unit's rate (run_stores too). Runs from before the probe's
# loads were asm volatile name it lsu.ld_global_* and lack these: the model
# keeps its values, listed as estimated.
LSU_FIELDS = {
    "lsu.cycles_per_instruction": ("lsu.ld_ca_cycles_per_instruction_1line", lambda v: round(v, 3),
                                   "an SM's load/store unit per ld.global of one 128-byte line (L1 hits)"),
}
# lsu.cycles_per_line is not from this timing: Nsight Compute counts a
# 128-byte line an L1 data-pipe wavefront, and the pipe runs one a cycle at
# its peak (results/l1_pipe_h200.txt), where the clock64 timing of the same
# kernels gives half that per instruction it assumes; the model takes Nsight's.
# Derived from two figures: wgmma's latency beyond its pipe time.
DERIVED = {
    "wgmma.latency": (("wgmma.m64n128k16_latency", "wgmma.m64n128k16_cycles_1wg"), lambda a, b: round(a - b),
                      "latency minus the instruction's own pipe cycles (the model adds those)"),
    # The measured copy moves an 8 KiB box: the model adds its bytes / tma.bytes_per_cycle.
    "tma.latency": (("tma.load_latency_l2", "tma.load_bytes_per_cycle_one_sm_l2_4issuers"), lambda a, b: round(a - 8192 / round(b)),
                    "latency of an 8 KiB box minus its 8 KiB / tma.bytes_per_cycle (the model adds those)"),
    "tma.dram_latency": (("tma.load_latency_dram", "tma.load_bytes_per_cycle_one_sm_l2_4issuers"), lambda a, b: round(a - 8192 / round(b)),
                         "latency of an 8 KiB box minus its 8 KiB / tma.bytes_per_cycle (the model adds those)"),
}

# The tile library's register arithmetic (bench/calibrate/alu.cu, in
# calibration_alu_NAME.json beside the calibration): cycles per element of a
# warp's op, with one warp per sub-partition (latency: the op's instructions
# and their dependent waits) and with four (throughput: the sub-partition's
# issue slot). Where the benchmark adds a cheap op to keep values in range,
# that op's figure is taken off.
ALU = "alu.{}_cycles_per_element_{}w_per_smsp"
ALU_DERIVED = {}
for kind, bench, helper, why in [
        ("simple", "mul_scalar", None, "add, sub, mul, min, max, fills and copies: one instruction an element"),
        ("exp", "exp", "mul_scalar", "expf, less the mul the benchmark adds"),
        ("exp2", "exp2", "mul_scalar", "ex2.approx (the special-function unit), less the mul the benchmark adds"),
        ("log", "log", "mul_scalar", "logf, less the scalar add the benchmark adds (priced as a scalar mul)"),
        ("div", "div", None, "IEEE float division"),
        ("convert", "convert_bf16", None, "float to bf16 and back is two conversions: half the figure")]:
    for field, w in (("latency", 1), ("throughput", 4)):
        names = (ALU.format(bench, w),) + ((ALU.format(helper, w),) if helper else ())
        if kind == "convert":
            conv = lambda a: round(a / 2, 2)
        elif helper:
            conv = lambda a, b: round(a - b, 2)
        else:
            conv = lambda a: round(a, 2)
        ALU_DERIVED[f"alu.{kind}.{field}"] = (names, conv, why)

# The instructions nvcc adds around a tile op's memory instructions
# (bench/calibrate/overhead_probes.h, in calibration_overhead_NAME.json): SASS
# per call of each probe, each op at two sizes, so that a fixed part per call
# and a part per instruction the simulator models can be told apart. The mma
# probe's excess is the probe loop's own bookkeeping (a kernel's loop has it
# too, and the simulator does not charge it), taken off where it is not
# cancelled; a load probe's excess is what is left after the probe that
# consumes its result.
OV = "overhead.{}_sass_per_call"


def overhead_figures(v):
    """(per_call, per_instruction) per kind from the probes' SASS per call `v`."""
    loop = v["mma"] - 32
    out = {}
    # 2 calls of 8 (and of 4) ldmatrix, after the mma probe of the same size.
    big, small = v["ldmatrix_mma"] - v["mma"] - 16, v["ldmatrix_mma_small"] - v["mma_small"] - 8
    p = (big - small) / 8
    out["ldmatrix"] = ((small - 8 * p) / 2, p, "two loads (16 and 8 ldmatrix), less the mma probe of the same size")
    # 4 and 16 cp.async a lane, with a commit and a wait each.
    p = (v["cp_async_one_warp"] - v["cp_async"] - 12) / 12
    out["cp_async"] = (v["cp_async"] - loop - 6 - 4 * p, p, "load_async of 4 and of 16 cp.async a lane, less commit, wait and the loop")
    if "cp_async_loop" in v:  # the same, one tile further each call: the addresses move
        p = (v["cp_async_loop_one_warp"] - v["cp_async_loop"] - 12) / 12
        out["cp_async_loop"] = (v["cp_async_loop"] - loop - 6 - 4 * p, p,
                                "load_async of 4 and of 16 cp.async a lane, one tile further each call, less commit, wait and the loop")
    p = (v["st_global_large"] - v["st_global"] - 16) / 16
    out["st_global"] = (v["st_global"] - loop - 16 - 16 * p, p, "stores of 16 and 32 st.global, less the loop")
    small, big = v["ld_st_global"] - v["st_global"] - 16, v["ld_st_global_large"] - v["st_global_large"] - 32
    p = (big - small) / 16
    out["ld_global"] = (small - 16 * p, p, "loads of 16 and 32 ld.global, less the store probe that consumes them")
    p = (v["group_load_one_warp"] - v["group_load"] - 24) / 24
    out["group_copy"] = (v["group_load"] - loop - 8 - 8 * p, p, "group loads of 8 and 32 instructions a lane, less the loop")
    return out


MIO_N = (1, 4, 8, 16, 32, 48, 64)


def mio_issue_cycles(n, warps, high, low):
    """The model's issue time of n back-to-back 32-wavefront loads per warp,
    `warps` warps on each of 4 sub-partitions sharing one pipe of a wavefront
    a cycle, each sub-partition issuing one instruction a cycle: a warp with
    `high` loads waiting for the pipe stops until only `low` are."""
    ws = [(s, k) for s in range(4) for k in range(warps)]
    issued = {x: 0 for x in ws}
    starts = {x: [] for x in ws}
    throttled = {x: False for x in ws}
    done, free, cyc = {}, 0, 0
    while len(done) < len(ws):
        for s in range(4):
            ready = []
            for x in ws:
                if x[0] != s or issued[x] == n:
                    continue
                waiting = sum(1 for t in starts[x] if t > cyc)
                if throttled[x] and waiting <= low:
                    throttled[x] = False
                if not throttled[x] and waiting >= high:
                    throttled[x] = True
                if not throttled[x]:
                    ready.append(x)
            if ready:
                x = ready[cyc % len(ready)]
                start = max(cyc, free)
                free = start + 32
                starts[x].append(start)
                issued[x] += 1
                if issued[x] == n:
                    done[x] = cyc + 1
        cyc += 1
    return max(done.values())


def mio_queue(figs):
    """The (high, low) of a warp's shared-memory queue that best fit the issue
    times of N back-to-back 32-wavefront loads with 1 and 2 warps per
    sub-partition (bench/calibrate/shared.cu, mio_issue): least squares."""
    best = None
    for high in range(2, 17):
        for low in range(0, high):
            err = sum((mio_issue_cycles(n, w, high, low) - figs[f"shared.issue_cycles_{n}x32way_{w}w_per_smsp"]["value"]) ** 2
                      for w in (1, 2) for n in MIO_N)
            if best is None or err < best[0]:
                best = (err, high, low)
    return best[1], best[2]


def set_path(d, path, value):
    keys = path.split(".")
    for k in keys[:-1]:
        d = d.setdefault(k, {})
    d[keys[-1]] = value


def get_path(d, path):
    for k in path.split("."):
        d = d[k]
    return d


TENSOR_ACTIVE_PCT = 0.1

# SASS instructions per element of each arithmetic kind, from Nsight
# Compute's count over the alu probes (alu_instructions_NAME.txt), less the
# helper op a probe adds, as ALU_DERIVED takes it off the cycles.
ALU_INSTRUCTIONS = {"simple": ("mul_scalar", None), "exp": ("exp", "mul_scalar"), "exp2": ("exp2", "mul_scalar"),
                    "log": ("log", "mul_scalar"), "div": ("div", None), "convert": ("convert_bf16", None)}


def alu_instructions(path):
    """Per alu kind of the cost model, SASS instructions per element (one warp
    per sub-partition: the table's 4-warp rows)."""
    per = {}
    for line in open(path):
        f = line.split()
        if line.startswith("#") or len(f) < 3 or f[0] == "kind" or f[1] != "4":
            continue
        per[f[0]] = float(f[2])
    out = {}
    for kind, (bench, helper) in ALU_INSTRUCTIONS.items():
        if bench not in per or (helper and helper not in per):
            sys.exit(f"arch_from_calibration: {path} has no one-warp row for {bench}" + (f" or {helper}" if helper else ""))
        v = per[bench] - (per[helper] if helper else 0)
        out[kind] = round(v / 2 if kind == "convert" else v, 2)
    return out


def kernel_clock(path):
    """The median SM clock (MHz) of the launches in an l1_hits.sh table that
    used the tensor pipe (sm__pipe_tensor_op_hmma_cycles_active at 0.1% or
    more: a kernel without tensor instructions can read 0.01%), and how many
    they were."""
    cols, clocks = None, []
    for line in open(path):
        if line.startswith("# columns:"):
            cols = line.split(":", 1)[1].split()
        elif line.strip() and not line.startswith("#") and cols:
            row = dict(zip(cols, line.split()))
            tensor = row.get("sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed")
            if tensor not in (None, "n/a") and float(tensor) >= TENSOR_ACTIVE_PCT:
                clocks.append(float(row["sm__cycles_elapsed.avg.per_second"]) / 1e6)
    if not clocks:
        sys.exit(f"arch_from_calibration: {path} has no launch that used the tensor pipe with its clock "
                 "(sm__cycles_elapsed.avg.per_second and sm__pipe_tensor_op_hmma_cycles_active...)")
    clocks.sort()
    mid = len(clocks) // 2
    return (clocks[mid] if len(clocks) % 2 else 0.5 * (clocks[mid - 1] + clocks[mid])), len(clocks)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cal = json.load(open(sys.argv[1]))
    arch_path = sys.argv[2]
    arch = json.load(open(arch_path))
    figs = {f["name"]: f for f in cal["figures"]}
    launch = os.path.join(os.path.dirname(sys.argv[1]), os.path.basename(sys.argv[1]).replace("calibration_", "launch_overhead_"))
    if os.path.exists(launch):
        figs.update({f["name"]: f for f in json.load(open(launch))["figures"]})
    # A family run on its own (calibrate.sh --only F) is in a file of its
    # own beside the calibration; a whole run has every family in one file.
    def beside(family):
        return os.path.join(os.path.dirname(sys.argv[1]), os.path.basename(sys.argv[1]).replace("calibration_", f"calibration_{family}_"))
    # A table of another script's, beside the calibration: PREFIX_NAME.txt.
    def beside_table(prefix):
        return os.path.join(os.path.dirname(sys.argv[1]), os.path.basename(sys.argv[1]).replace("calibration_", prefix + "_").replace(".json", ".txt"))
    alu = beside("alu")
    derived = dict(DERIVED)
    if os.path.exists(alu):
        figs.update({f["name"]: f for f in json.load(open(alu))["figures"]})
    if ALU.format("mul_scalar", 1) in figs:
        derived.update(ALU_DERIVED)
    stores = beside("stores")
    fields = dict(FIELDS)
    for family in ("memory", "stores"):  # both hold run_stores' figures (memory: with the load/store unit at 32 lines)
        if os.path.exists(beside(family)):
            figs.update({f["name"]: f for f in json.load(open(beside(family)))["figures"]})
    if STORE_FIELDS["memory.l2_write_bytes_per_cycle_per_sm"][0] in figs:
        fields.update(STORE_FIELDS)
    # A later run of the async family adds figures the whole run lacked
    # (never replacing one: the model's other figures stay the whole run's).
    if os.path.exists(beside("async")):
        figs.update({f["name"]: f for f in json.load(open(beside("async")))["figures"] if f["name"] not in figs})
    fields.update({k: v for k, v in LSU_FIELDS.items() if v[0] in figs})
    fields.update({k: v for k, v in TMA_FIELDS.items() if v[0] in figs})
    if os.path.exists(beside("frontend")):
        figs.update({f["name"]: f for f in json.load(open(beside("frontend")))["figures"] if f["name"] not in figs})
    fields.update({k: v for k, v in CONSTANT_FIELDS.items() if v[0] in figs})
    fields.update({k: v for k, v in TURNAROUND_FIELDS.items() if v[0] in figs})
    ov = beside("overhead")
    ov_figs = {f["name"]: f for f in json.load(open(ov))["figures"]} if os.path.exists(ov) else None
    if ov_figs is None and OV.format("mma") in figs:
        ov_figs = {k: f for k, f in figs.items() if k.startswith("overhead.") or k.startswith("shared.issue_cycles_")}
    figs["sm_clock_mhz"] = {"value": cal["sm_clock_mhz"]["start"] if isinstance(cal["sm_clock_mhz"], dict) else cal["sm_clock_mhz"],
                            "method": "%clock64 over a %globaltimer interval, under load"}
    measured = {}
    for field, (name, conv, why) in fields.items():
        if name not in figs:
            sys.exit(f"arch_from_calibration: the calibration has no figure {name} (for {field})")
        set_path(arch, field, conv(figs[name]["value"]))
        measured[field] = {"from": name, "value": figs[name]["value"], "method": figs[name].get("method", "")}
        if why:
            measured[field]["conversion"] = why
    for field, (names, conv, why) in derived.items():
        vals = [figs[n]["value"] for n in names]
        set_path(arch, field, conv(*vals))
        measured[field] = {"from": " - ".join(names), "value": vals, "conversion": why}
    if ov_figs:
        vals = {k[len("overhead."):-len("_sass_per_call")]: f["value"] for k, f in ov_figs.items() if k.startswith("overhead.")}
        arch.pop("overhead", None)
        for kind, (per_call, per_instruction, why) in overhead_figures(vals).items():
            for part, x in (("per_call", per_call), ("per_instruction", per_instruction)):
                field = f"overhead.{kind}.{part}"
                set_path(arch, field, round(max(0.0, x), 2))
                measured[field] = {"from": "overhead.*_sass_per_call (calibration_overhead)", "value": round(x, 3),
                                   "conversion": why + " (scripts/dev/arch_from_calibration.py, overhead_figures)"}
        # One warp's time per instruction of that arithmetic, alone on its
        # sub-partition: the probes' timing (calibration_overhead_timing_NAME.json)
        # of group<4>:: and group<1>::load_async, whose copies' latency cancels
        # in the difference: cycles over SASS instructions between the two.
        timing = ov.replace("calibration_overhead_", "calibration_overhead_timing_")
        tv = {f["name"]: f["value"] for f in json.load(open(timing))["figures"]} if os.path.exists(timing) else \
            {k: f["value"] for k, f in figs.items() if k.startswith("overhead.")}
        if "overhead.cp_async_cycles_per_call" in tv:
            names = ["overhead.cp_async_one_warp_cycles_per_call", "overhead.cp_async_cycles_per_call",
                     "overhead.cp_async_one_warp_sass_per_call", "overhead.cp_async_sass_per_call"]
            a, b, sa, sb = (tv[n] for n in names)
            set_path(arch, "overhead.latency", round((a - b) / (sa - sb), 2))
            measured["overhead.latency"] = {
                "from": " - ".join(names), "value": [a, b, sa, sb],
                "conversion": "cycles per call over SASS per call, the difference of the two probes (one warp per sub-partition; "
                              "the copies' latency cancels): one warp's cycles per instruction of address arithmetic"}
        high, low = mio_queue(ov_figs)
        arch["shared"].pop("mio_queue_depth", None)
        for field, v in (("shared.mio_queue_high", high), ("shared.mio_queue_low", low)):
            set_path(arch, field, v)
            measured[field] = {
                "from": "shared.issue_cycles_{N}x32way_{W}w_per_smsp", "value": v,
                "conversion": "the warp's queue limits whose model fits the issue times of N = 1..64 back-to-back 32-wavefront loads, "
                              "1 and 2 warps per sub-partition, best (least squares; scripts/dev/arch_from_calibration.py, mio_queue)"}
    # The load/store unit's queue (bench/calibrate/lsu_queue.cu, --only
    # lsu_queue): the stores' time a line at the unit and the queue's depth
    # (scripts/dev/lsu_queue_fit.py), with the loads' time a line the model has.
    queue = beside("lsu_queue")
    if os.path.exists(queue):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import lsu_queue_fit
        q = lsu_queue_fit.fit({f["name"]: f["value"] for f in json.load(open(queue))["figures"]}, get_path(arch, "lsu.cycles_per_line"))
        set_path(arch, "lsu.st_cycles_per_line", round(q["store_per_line"], 2))
        measured["lsu.st_cycles_per_line"] = {
            "from": "lsu.st_issue_cycles_{48,64}x32lines_2w_per_smsp (calibration_lsu_queue)", "value": round(q["store_per_line"], 3),
            "conversion": "8 warps storing past the queue's knee: cycles per 32-line st.global over 32 (scripts/dev/lsu_queue_fit.py)"}
        set_path(arch, "lsu.queue_depth", q["depth"])
        measured["lsu.queue_depth"] = {
            "from": "lsu.{ld,st}_issue_cycles_{N}x32lines_{config} (calibration_lsu_queue)", "value": q["depth"],
            "conversion": f"the SM-wide queue of global instructions whose model best fits the issue times of N = 1..64 back-to-back "
                          f"32-line loads and stores, 1 to 8 warps (least squares, rms {q['rms']:.0f} cycles; scripts/dev/lsu_queue_fit.py)"}
    clock = beside_table("kernel_clock")
    if os.path.exists(clock):
        mhz, n = kernel_clock(clock)
        if "tensor_clock_mhz" not in arch:  # beside clock_mhz, where a reader looks for it
            arch = {k2: v2 for k, v in arch.items() for k2, v2 in ([(k, v), ("tensor_clock_mhz", 0)] if k == "clock_mhz" else [(k, v)])}
        set_path(arch, "tensor_clock_mhz", round(mhz))
        measured["tensor_clock_mhz"] = {
            "from": clock, "value": round(mhz, 1),
            "method": f"median of sm__cycles_elapsed.avg.per_second (Nsight Compute, clocks left to the GPU) over the {n} fidelity "
                      "launches whose tensor pipe was active: the clock a kernel runs at while it uses the tensor cores"}
    instructions = beside_table("alu_instructions")
    if os.path.exists(instructions):
        for kind, v in alu_instructions(instructions).items():
            set_path(arch, f"alu.{kind}.instructions", v)
            bench, helper = ALU_INSTRUCTIONS[kind]
            measured[f"alu.{kind}.instructions"] = {
                "from": instructions, "value": v,
                "method": f"Nsight Compute's smsp__inst_executed over the {bench} probe (one warp per sub-partition), per element" +
                          (f", less the {helper} probe's" if helper else "") + (", halved (a round trip)" if kind == "convert" else "")}
    if "l2_bytes" in cal:
        set_path(arch, "memory.l2_bytes", int(cal["l2_bytes"]))
        measured["memory.l2_bytes"] = {"from": "cudaDeviceProp::l2CacheSize", "value": cal["l2_bytes"]}
    arch["measured_on"] = f"{cal['gpu']}, driver {cal['driver']}, {cal['nvcc']}, {cal['date']} ({sys.argv[1]})"
    arch["measured"] = measured
    arch["estimated"] = sorted(k for k in ["issue_cycles", "global.issue_cycles", "base_registers_per_thread", "registers_per_loop_address",
                                           "registers_from_shared_share", "registers_run_base", "registers_per_run_address",
                                           "memory.l1_shared_bytes_per_sm", "memory.shared_carveouts_kb", "lsu.cycles_per_line", "tensor_clock_mhz", *LSU_FIELDS,
                                           "lsu.st_cycles_per_line", "lsu.queue_depth", "constant.miss_cycles",
                                           *(f"alu.{kind}.instructions" for kind in ALU_INSTRUCTIONS)] if k not in measured)
    with open(arch_path, "w") as f:
        json.dump(arch, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
