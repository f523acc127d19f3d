// The trace document on disk: the writer streams it record by record, the
// reader checks and loads it. trace/SCHEMA.md describes every field.
#pragma once
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include "trace/trace.h"

namespace tklab::trace {

// Anything wrong with a trace file: what, and where (byte offset or JSON path).
struct TraceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class Encoding { json, cbor };
// By extension: .json is JSON, .cbor is CBOR. Anything else is a TraceError.
Encoding encoding_of(const std::string& path);

// ---- records: one JSON object each, the same in both encodings ----
json header_of(const Trace& t);
json file_record(uint32_t id, const SourceFile& f);
json locations_record(uint32_t first, const std::vector<Location>& locs);  // locs[first..]
json op_names_record(uint32_t first, const std::vector<std::string>& names);
json launch_record(uint32_t launch, const Launch& l);
json block_record(uint32_t launch, const Block& b);
json summary_record(uint32_t launch, const Launch& l);  // l.summary must be set
json failure_record(int64_t launch, const Failure& f);
json check_record(const Check& c);
json gpu_kernel_record(const GpuKernel& k);
// A gpu_kernel record checked field by field (the loader's own check); `path`
// names the record in errors, e.g. "records[12]".
GpuKernel gpu_kernel_of(const json& r, const std::string& path);
json gpu_counters_record(const GpuCounters& c);
GpuCounters gpu_counters_of(const json& r, const std::string& path);
json gpu_stalls_record(const GpuStalls& s);
GpuStalls gpu_stalls_of(const json& r, const std::string& path);

// Writes a trace as a stream: header first, then records as they come, each
// flushed at once, so a run that dies leaves every record written before (a
// regular file under a temporary name beside it: see writing_path_).
class Writer {
public:
    explicit Writer(const std::string& path);  // throws TraceError when the file cannot be created
    ~Writer();                                 // closes the document if close() was not called
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    // Each throws TraceError on the first failed write (a full disk, a file
    // size limit); after that the writer is failed(): later calls write
    // nothing and throw nothing, so an error handler may still call them.
    void begin(const Trace& t);   // format, version and header
    void record(const json& r);
    void close();                 // the end record, then the closing brackets; the file then takes its name
    uint64_t bytes() const { return bytes_; }
    const std::string& path() const { return path_; }
    bool failed() const { return !error_.empty(); }
    const std::string& error() const { return error_; }  // what failed, "" when nothing did

private:
    void put(const void* p, size_t n);
    void fail(const std::string& what);  // remembers the error, keeps what was written, throws
    std::string path_;
    // A regular file is written under a temporary name beside it and renamed
    // when closed (or when a write fails, so --salvage reads the prefix): two
    // runs writing one path leave one run's whole file, never a mix. A
    // device or a pipe (/dev/null, a FIFO) is written in place.
    std::string writing_path_;
    Encoding enc_;
    std::FILE* f_ = nullptr;
    bool first_ = true, closed_ = false;
    uint64_t bytes_ = 0;
    std::string buf_;
    std::string error_;
};

// Writes a whole in-memory trace, in the order a recorder streams it.
void write_trace(const std::string& path, const Trace& t);

struct LoadOptions {
    // Keep the complete records of a truncated file instead of failing
    // (Trace::complete stays false, and `warning` says what was lost).
    bool salvage = false;
    // false: keep each simulated block's totals and regions and drop its
    // timeline (events, shared-memory records, barrier waits, register changes,
    // snapshots) once checked, as if it were recorded without one: what
    // `report` and `fidelity` read, in a fraction of the memory. A GPU trace's
    // blocks keep theirs (its regions are its events).
    bool timelines = true;
};

struct Loaded {
    Trace trace;
    std::string warning;  // set when salvage kept a prefix
};

// Reads and checks a trace (either encoding), streaming the file (it is never
// held whole in memory). Throws TraceError saying what is wrong and where;
// never crashes on a bad file.
Loaded load_trace(const std::string& path, const LoadOptions& opt = {});
Loaded load_trace_bytes(const std::string& bytes, Encoding enc, const std::string& name, const LoadOptions& opt = {});

// 64-bit FNV-1a of a text, as "fnv1a64:<16 hex digits>".
std::string text_hash(const std::string& text);

} // namespace tklab::trace
