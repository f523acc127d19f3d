// tk::region: times a stretch of a kernel, per warp, on the GPU.
//
//   { tk::region r("main loop"); ... }   // begins here, ends at the closing brace
//
// The same annotation serves both builds. Its id is the 32-bit FNV-1a hash of
// the name, computed at compile time (the name must be a string literal), so
// the device needs no string table; the source line is kept too.
//
// GPU: while the profiler has a buffer set (`tklab_gpu run NAME --profile
// regions`, profiler/gpu/regions_session.h), the warp's first active lane
// reads its clocks when the region begins and asks for one 48-byte record in
// the warp's slice of the buffer, and at the end fills it {id, smid, block,
// warp, %globaltimer and clock64 at begin and end, line} (layout:
// tk/common/region_buffer.h); an open region holds three registers. A full
// slice counts what it drops and never writes past. Without a buffer a
// marker costs a constant load, a compare and a branch
// (results/region_cost_h200.txt measures what it costs). Give it a name
// (`tk::region r(...)`): a nameless temporary ends at once. Nested regions
// are fine; keep them out of the innermost loops, where a marker's clock
// reads and stores are not free.
//
// Simulator: each warp records the region once (sim/api.h region_begin/end):
// it begins at the warp's clock when its first lane constructs the marker and
// ends when its last lane destroys it, with the name, the id and the source
// line; it costs no simulated cycles. The trace keeps them in each block's
// `regions` table (trace/SCHEMA.md), beside the instructions, not among them.
//
// This file is the device side only. The host side -- pointing a translation
// unit's region_view at the profiler's buffer around each launch -- is in
// tk/host/launch.h; the buffer's layout is tk/common/region_buffer.h.
#pragma once
#include "tk/common/base.h"
#include "tk/common/region_buffer.h"
#if defined(TK_SIM)
#include <exception>
#endif

#if defined(TK_GPU)
#define TK_REGION_CONSTEVAL __host__ __device__ consteval
#else
#define TK_REGION_CONSTEVAL consteval
#endif

namespace tk {

// A region's name, hashed when the kernel compiles.
struct region_name {
    uint32_t id;
#if defined(TK_SIM)
    const char* text;  // the literal itself: the simulator records names, not hashes
    template <size_t N>
    TK_REGION_CONSTEVAL region_name(const char (&s)[N]) : id(tklab::regions::fnv1a32(s)), text(s) {}
#else
    template <size_t N>
    TK_REGION_CONSTEVAL region_name(const char (&s)[N]) : id(tklab::regions::fnv1a32(s)) {}
#endif
};

#if defined(TK_GPU)

namespace detail {

// This translation unit's view of the current buffer: the launch wrapper
// (tk/host/launch.h), instantiated in the kernel's own translation unit, sets
// it before a launch and clears it after, so kernel signatures stay as they are.
static __constant__ tklab::regions::DeviceView region_view;

TK_DEVICE uint32_t region_smid() {
    uint32_t s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}
TK_DEVICE uint32_t region_laneid() {
    uint32_t l;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
}

} // namespace detail

#endif

#if defined(TK_GPU) && !defined(TK_NO_REGIONS)

class region {
public:
    // Not recording, a marker is a compare and a branch on constant memory,
    // the same for every thread. It used to be branch-free, its counter load
    // predicated off: the instructions after it still waited for that load to
    // pass through the load/store unit. The demo GEMM at 4096x4096x128 took
    // 35.5 us against 32.2 with the markers compiled out (-DTK_NO_REGIONS),
    // and a quarter of its PC samples fell on the store's line as
    // long_scoreboard (H200); results/region_cost_h200.txt has what they cost
    // now. Recording, every memory access is predicated on "this is the
    // warp's first active lane".
    //
    // Recording, nothing at the begin waits for memory: the clocks are read
    // first, then an atomic add on the warp's counter asks for a record, and
    // its answer is read only at the end, after the end's clocks. The begin
    // used to load the counter, store it back and read its clocks once the
    // load was back: each region began an L2 round trip after the one before
    // it ended (H100: 230-290 cycles at one wave, 760-2300 at many), and the
    // compiler was free to run the region's own address arithmetic in that
    // wait, before the clocks (the demo GEMM's prologue now has about 120
    // such instructions after its clock read, and measures 859 cycles where
    // it measured 471). Now 67-111 cycles at one wave and 146-736 at many
    // pass between two regions.
    TK_DEVICE explicit region(region_name name, uint32_t line = __builtin_LINE()) : id_(name.id), line_(line) {
        const tklab::regions::DeviceView& v = detail::region_view;
        if (v.records == nullptr) return;
        const uint32_t w = place().slice;
        const uint32_t lead = uint32_t(detail::region_laneid() == uint32_t(__ffs(__activemask()) - 1));
        const uint32_t in_slice = lead & uint32_t(w < v.warps);
        const uint32_t no_slice = lead & uint32_t(w >= v.warps);
        asm volatile(
            "{\n\t.reg .pred p, q;\n\t.reg .u64 cnt, t0, c0;\n\t"
            "setp.ne.u32 p, %3, 0;\n\t"
            "@p mov.u64 c0, %%clock64;\n\t"
            "@p mov.u64 t0, %%globaltimer;\n\t"
            "@p cvt.u32.u64 %1, t0;\n\t"
            "@p cvt.u32.u64 %2, c0;\n\t"
            // The atomic waits for the clock (a predicate made from it): the
            // compiler may not move it, or its wait in a full queue, first.
            "setp.ne.and.u32 q, %2, %6, p;\n\t"
            "mad.wide.u32 cnt, %4, 4, %5;\n\t"
            "@q atom.global.add.u32 %0, [cnt], 1;\n\t"  // the record number, read at the end
            "@!q mov.u32 %0, -1;\n\t"
            "setp.ne.u32 q, %7, 0;\n\t"                 // no slice for this warp: counted as lost
            "@q red.global.add.u32 [%8], 1;\n\t}"
            : "=r"(slot_), "+r"(t0_), "+r"(c0_)
            : "r"(in_slice), "r"(w), "l"(v.counts), "r"(kNoClock), "r"(no_slice), "l"(v.lost)
            : "memory");
    }
    TK_DEVICE ~region() {
        const tklab::regions::DeviceView& v = detail::region_view;
        if (v.records == nullptr) return;  // not recording: no clock reads, no store
        const Place at = place();
        // The end's clocks first; then the record number (the wait for the
        // atomic, if any, falls after the region) and the whole record. The
        // begin's clocks were kept as their low 32 bits: a region lasts less
        // than 2^32 cycles and nanoseconds.
        asm volatile(
            "{\n\t.reg .pred p, q;\n\t.reg .u64 a, t1, c1, t0, c0, d;\n\t.reg .u32 lo, s;\n\t"
            "mov.u64 c1, %%clock64;\n\t"
            "mov.u64 t1, %%globaltimer;\n\t"
            // Whatever reads the record number waits for the clock (a
            // predicate made from it), so the wait for the atomic cannot come
            // before the clock is read.
            "cvt.u32.u64 lo, c1;\n\t"
            "setp.ne.u32 q, lo, %10;\n\t"
            "setp.ne.u32 p, lo, lo;\n\t"
            "@q setp.lt.u32 p, %0, %3;\n\t"  // a record number (-1: not the recording lane) with room in the slice
            "cvt.u32.u64 lo, t1;\n\t"
            "sub.u32 lo, lo, %1;\n\t"
            "cvt.u64.u32 d, lo;\n\t"
            "sub.u64 t0, t1, d;\n\t"
            "cvt.u32.u64 lo, c1;\n\t"
            "sub.u32 lo, lo, %2;\n\t"
            "cvt.u64.u32 d, lo;\n\t"
            "sub.u64 c0, c1, d;\n\t"
            "@p mad.lo.u32 s, %4, %3, %0;\n\t"
            "@p mad.wide.u32 a, s, 48, %5;\n\t"
            "@p st.global.cs.v2.u64 [a], {t0, c0};\n\t"
            "@p st.global.cs.v2.u64 [a+16], {t1, c1};\n\t"
            "@p st.global.cs.v4.u32 [a+32], {%6, %7, %8, %9};\n\t}"
            :: "r"(slot_), "r"(t0_), "r"(c0_), "r"(v.records_per_warp), "r"(at.slice), "l"(v.records), "r"(id_), "r"(at.block),
               "r"((at.warp & 0xffffu) | (detail::region_smid() << 16)), "r"(line_), "r"(kNoClock)
            : "memory");
    }
    region(const region&) = delete;
    region& operator=(const region&) = delete;

private:
    // The warp's linear block, its index in the block, and its slice: its
    // linear index in the launch (32 bits: no launch has 2^32 warps).
    struct Place { uint32_t block, warp, slice; };
    static TK_DEVICE Place place() {
        const uint32_t threads = blockDim.x * blockDim.y * blockDim.z;
        const uint32_t thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        const uint32_t block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        return {block, thread / 32, block * ((threads + 31) / 32) + thread / 32};
    }
    static constexpr uint32_t kNone = 0xffffffffu;
    // A value the clock's low half never takes in practice, compared with to
    // make a predicate that depends on the clock read (the compiler cannot
    // know it is always true). Were it taken, one region goes unrecorded.
    static constexpr uint32_t kNoClock = 0x5eedc10cu;
    // Held by the recording lane while the region is open: the record number
    // (an atomic's answer, waited for only at the end) and the low halves of
    // the begin's clocks. The name's id and the line are constants.
    uint32_t slot_ = kNone, t0_ = 0, c0_ = 0;
    uint32_t id_, line_;
};

#elif defined(TK_SIM)

// Simulator: every lane's fiber runs the constructor and the destructor; the
// simulator keeps one record per warp (sim/api.h). The name must be a string
// literal (region_name checks it), so its pointer outlives the run.
class region {
public:
    explicit region(region_name name, TK_LOC)
        : id_(name.id), record_(tklab::sim::region_begin(name.text, loc.file, loc.line)),
          exceptions_(std::uncaught_exceptions()) {}
    ~region() {
        // Unwinding (a fault stops the block, or the kernel threw): the region
        // was never left normally, so it stays open in the trace.
        tklab::sim::region_end(record_, std::uncaught_exceptions() > exceptions_);
    }
    uint32_t id() const { return id_; }  // the GPU's id for this name (FNV-1a), for tools that match the two
    region(const region&) = delete;
    region& operator=(const region&) = delete;

private:
    uint32_t id_;
    int64_t record_;
    int exceptions_;
};

#else  // TK_NO_REGIONS on the GPU

// -DTK_NO_REGIONS compiles the markers out (to measure what merely having
// them costs: they add registers to a kernel even when off).
class region {
public:
    TK_DEVICE explicit region(region_name name, TK_LOC) { (void)name; (void)loc; }
    region(const region&) = delete;
    region& operator=(const region&) = delete;
};

#endif

} // namespace tk
