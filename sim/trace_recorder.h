// Records simulator runs into a trace: installs itself as the simulator's
// observer, turns each finished block into trace records (streamed to a file
// as they come, so a run that fails half way leaves a loadable file) and
// gathers, over every block, the per-line summaries a report needs.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include "sim/simulator.h"
#include "trace/codec.h"
#include "trace/trace.h"

namespace tklab::sim {

struct RecorderOptions {
    std::string path;                 // trace file (.json or .cbor); empty: keep it in memory only
    trace::Recording recording;       // which blocks get a timeline, lanes, snapshots
    std::string program, variant;     // what ran (registry entry), for the header
    trace::json problem = trace::json::object();
    uint64_t seed = 0;
    bool keep_events = false;         // keep timeline blocks' events in trace() too (tests, small runs)
    // Called after each block with (blocks done, blocks in the launch).
    std::function<void(uint64_t, uint64_t)> progress;
};

// "first-wave", "all", "none" or a list of linear block indices and ranges
// such as "0-3,7". Throws std::invalid_argument saying what is wrong.
std::function<bool(uint64_t index, uint64_t first_wave)> parse_timeline_blocks(const std::string& spec);

class TraceRecorder : public Observer {
public:
    // Starts recording (and writing the header when there is a path); stops in
    // the destructor, which closes the file.
    explicit TraceRecorder(RecorderOptions opt);
    ~TraceRecorder() override;
    TraceRecorder(const TraceRecorder&) = delete;
    TraceRecorder& operator=(const TraceRecorder&) = delete;

    // What ran outside any kernel: the output check, a failure in host code.
    void add_check(const trace::Check& c);
    void add_failure(const std::string& kind, const std::string& message, const std::string& file = {}, int line = 0);
    void close();  // ends the file; later launches are not recorded

    // The trace as recorded so far: summaries of every launch, block headers
    // with their regions (always: they are few), and (keep_events) the
    // timeline blocks' events.
    const trace::Trace& trace() const { return trace_; }
    uint64_t bytes_written() const { return writer_ ? writer_->bytes() : 0; }
    // Why writing the file failed ("" when it did not): the run goes on being
    // recorded in memory, and the file keeps what was written before.
    std::string write_error() const { return writer_ ? writer_->error() : std::string(); }

    // Observer
    void launch_begin(const RunResult& r, const CostModel& cost) override;
    bool wants_timeline(uint64_t index) override;
    void block_done(const BlockTrace& block, const RunResult& r) override;
    void launch_end(const RunResult& r, const SimError* error) override;

private:
    struct Aggregates;
    uint32_t file_id(const std::string& path);
    uint32_t loc_id(const std::string& file, int line);
    void map_launch_ids(const RunResult& r);
    // This launch's simulator location id as the trace's (0 when unknown).
    uint32_t trace_loc(uint32_t sim_loc) const { return sim_loc < loc_map_.size() ? loc_map_[sim_loc] : 0; }
    void flush_tables();
    void emit(const trace::json& record);

    RecorderOptions opt_;
    std::function<bool(uint64_t, uint64_t)> timeline_;
    trace::Trace trace_;
    std::unique_ptr<trace::Writer> writer_;
    std::unique_ptr<Aggregates> agg_;
    Observer* previous_ = nullptr;
    bool installed_ = false;
    std::vector<uint32_t> loc_map_;     // this launch's sim location id -> trace location id
    std::vector<uint16_t> name_map_;    // this launch's sim op-name id -> trace op-name id
    size_t files_written_ = 1, locs_written_ = 1, names_written_ = 1;
    uint64_t first_wave_ = 0, blocks_total_ = 0, blocks_done_ = 0;
    bool saved_lanes_ = false, saved_snapshots_ = false;  // the options it changed, restored by close()
};

} // namespace tklab::sim
