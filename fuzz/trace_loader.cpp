// libFuzzer target: the trace loader (trace/reader.cpp) and what `tklab
// report`, `tklab export --chrome` and `tklab fidelity` do with what it loads.
//
// Each input is read as JSON and as CBOR, strictly and with --salvage. The
// loader may only ever throw TraceError, with a message naming the file; a
// trace it accepts must print as a report, convert for Perfetto and compare
// with itself for fidelity without throwing (write_report promises that for
// any loaded trace; compare_fidelity notes bad counters in its table). Anything else
// (a crash, a sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <streambuf>
#include <string>
#include "profiler/decode/fidelity.h"
#include "trace/chrome_export.h"
#include "trace/codec.h"
#include "trace/report.h"

namespace {

// Output nobody reads: the report's text is not under test, only that making it is safe.
struct NullBuffer : std::streambuf {
    int overflow(int c) override { return c; }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "trace_loader fuzzer: %s\n", what.c_str());
    std::abort();
}

// Loads; returns true when it loaded. A TraceError is the expected answer to
// a bad file; its message must name the file, as every caller prints it alone.
bool load(const std::string& bytes, tklab::trace::Encoding enc, const std::string& name, bool salvage,
          tklab::trace::Loaded& out) {
    try {
        out = tklab::trace::load_trace_bytes(bytes, enc, name, {salvage});
        return true;
    } catch (const tklab::trace::TraceError& e) {
        const std::string m = e.what();
        if (m.rfind(name + ": ", 0) != 0) finding("a TraceError that does not start with the file's name: " + m);
        return false;
    }
}

void one(const std::string& bytes, tklab::trace::Encoding enc, const std::string& name) {
    tklab::trace::Loaded salvaged, strict;
    const bool salvage_ok = load(bytes, enc, name, true, salvaged);
    const bool strict_ok = load(bytes, enc, name, false, strict);
    // --salvage only ever reads more: what loads strictly loads the same with it, silently.
    if (strict_ok && (!salvage_ok || !salvaged.warning.empty()))
        finding("a trace that loads strictly but not the same with --salvage");
    if (strict_ok && !strict.trace.complete) finding("a strictly loaded trace that is not complete");
    if (!salvage_ok) return;
    NullBuffer nb;
    std::ostream sink(&nb);
    tklab::trace::write_report(sink, salvaged.trace, {false, 5});
    tklab::trace::write_report(sink, salvaged.trace, {true, 1000});
    tklab::trace::write_chrome(sink, salvaged.trace, {true});
    tklab::profiler::write_fidelity(sink, tklab::profiler::compare_fidelity(salvaged.trace, salvaged.trace), true);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    one(bytes, tklab::trace::Encoding::json, "fuzz.json");
    one(bytes, tklab::trace::Encoding::cbor, "fuzz.cbor");
    return 0;
}
