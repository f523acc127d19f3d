// Kernels and lessons make themselves runnable by name (`tklab run NAME`):
// a few lines beside the kernel say what its problem sizes are, how to make
// inputs, how to launch each variant and what the CPU reference is.
//
//   TKLAB_PROGRAM(gemm, tk::host::program_def<GemmData>{
//       .name = "gemm", .summary = "bf16 matrix product, 64x64 tiles",
//       .variants = {"swizzled", "unswizzled"},
//       .dims = {{"M", 256, 64}, {"N", 256, 64}, {"K", 256, 64}},
//       .inputs = ..., .run = ..., .output = ..., .reference = ...});
//
// The same registration builds for the simulator and for the GPU.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "tk/host/reference.h"

namespace tk::host {

// One problem dimension, set by --size (all of them) or --NAME.
struct problem_dim {
    std::string name;
    int default_value = 256;
    int multiple = 16;       // allowed values are positive multiples of this
    int max = 1 << 16;
};

using dims_t = std::map<std::string, int>;

// What a problem's data takes once made: host vectors, and device buffers
// (which the simulator keeps in host memory, with a written bit per byte).
// Declared so `tklab run` can refuse a size before spending minutes making
// data that will not fit; tests/programs checks each declaration.
struct data_size {
    double host = 0, device = 0;  // bytes
    double in_host_memory() const { return host + device * 9 / 8; }
};

struct check_result {
    std::string output;
    double max_error = 0, tolerance = 0;
    bool passed = false;
};

// One instance of a problem: inputs made, ready to run any variant.
class program_case {
public:
    virtual ~program_case() = default;
    virtual void run(const std::string& variant) = 0;
    virtual check_result check() = 0;                       // compares the output with the CPU reference
    virtual std::vector<float> output() = 0;                // the kernel's result, downloaded
    virtual std::vector<double> reference() = 0;            // the CPU reference of it
    virtual double time_ms(const std::string& variant) = 0;  // GPU: average per run (simulator: -1)
};

struct program {
    std::string name, kind, summary;
    std::vector<std::string> variants;  // the first is the default
    std::vector<problem_dim> dims;
    std::function<double(const dims_t&, const std::string& variant)> flops;  // for rates; may be empty
    std::function<double(const dims_t&)> bytes;  // bytes moved per run, for memory rates; may be empty
    std::function<data_size(const dims_t&)> data;  // what make() takes; may be empty
    std::function<std::unique_ptr<program_case>(const dims_t&, unsigned seed)> make;

    // The dims with defaults filled in; throws std::invalid_argument naming a bad one.
    dims_t resolve(const dims_t& given) const {
        dims_t out;
        for (const auto& [k, v] : given) {
            bool known = false;
            for (const problem_dim& d : dims) known = known || d.name == k;
            if (!known) throw std::invalid_argument(name + " has no size '" + k + "'" + dims_help());
        }
        for (const problem_dim& d : dims) {
            auto it = given.find(d.name);
            const int v = it == given.end() ? d.default_value : it->second;
            if (v <= 0 || v % d.multiple != 0 || v > d.max)
                throw std::invalid_argument(name + ": " + d.name + " = " + std::to_string(v) + " is not allowed; it must be a positive multiple of " +
                                            std::to_string(d.multiple) + " up to " + std::to_string(d.max));
            out[d.name] = v;
        }
        return out;
    }
    std::string dims_help() const {
        std::string s = " (sizes:";
        for (const problem_dim& d : dims) s += " " + d.name;
        return s + ")";
    }
};

// What a kernel or lesson author writes: Data holds the inputs and output.
template <typename Data>
struct program_def {
    std::string name, kind = "kernel", summary;
    std::vector<std::string> variants = {"default"};
    std::vector<problem_dim> dims;
    std::function<Data(const dims_t&, unsigned seed)> inputs;
    std::function<void(Data&, const std::string& variant)> run;
    std::function<std::vector<float>(Data&)> output;               // the kernel's result, downloaded
    std::function<std::vector<double>(const Data&)> reference;     // the CPU reference of it
    std::string output_name = "out";
    double tolerance = 1e-2;                                       // on max_relative_error
    std::function<double(const dims_t&)> flops = {};               // floating-point operations per run (TFLOP/s)
    // Instead of flops, when the count depends on the variant (causal attention does half the work).
    std::function<double(const dims_t&, const std::string& variant)> variant_flops = {};
    std::function<double(Data&, const std::string& variant)> time_ms;  // optional: a GPU timing loop
    std::function<double(const dims_t&)> bytes = {};               // bytes a run must move (GB/s): memory-bound kernels
    std::function<data_size(const dims_t&)> data = {};             // what inputs() makes: for sizes that reach gigabytes
};

// Variants that differ only in the kernel they launch (a lesson's exercise,
// solution and known-wrong kernels): fills def.variants in order (the first is
// the default) and def.run, which calls launch(data, kernel). Set def.name first.
template <typename Data, typename Kernel, typename Launch>
void set_variants(program_def<Data>& def, std::vector<std::pair<std::string, Kernel>> kernels, Launch launch) {
    def.variants.clear();
    for (const auto& k : kernels) def.variants.push_back(k.first);
    def.run = [kernels = std::move(kernels), launch, name = def.name](Data& d, const std::string& variant) {
        for (const auto& k : kernels)
            if (k.first == variant) return launch(d, k.second);
        throw std::invalid_argument(name + " has no variant '" + variant + "'");
    };
}

inline std::vector<program>& registry() {
    static std::vector<program> r;
    return r;
}

inline const program* find_program(const std::string& name) {
    for (const program& p : registry())
        if (p.name == name) return &p;
    return nullptr;
}

template <typename Data>
class typed_case : public program_case {
public:
    typed_case(std::shared_ptr<const program_def<Data>> def, Data d) : def_(std::move(def)), data_(std::move(d)) {}
    void run(const std::string& variant) override { def_->run(data_, variant); }
    check_result check() override {
        const double err = max_relative_error(def_->output(data_), def_->reference(data_));
        return {def_->output_name, err, def_->tolerance, err <= def_->tolerance};
    }
    std::vector<float> output() override { return def_->output(data_); }
    std::vector<double> reference() override { return def_->reference(data_); }
    double time_ms(const std::string& variant) override { return def_->time_ms ? def_->time_ms(data_, variant) : -1.0; }

private:
    std::shared_ptr<const program_def<Data>> def_;
    Data data_;
};

// A program from its definition, without registering it (tests build lessons
// with deliberately wrong kernels this way).
template <typename Data>
program make_program(program_def<Data> d) {
    auto def = std::make_shared<const program_def<Data>>(std::move(d));
    std::function<double(const dims_t&, const std::string&)> flops = def->variant_flops;
    if (!flops && def->flops) flops = [f = def->flops](const dims_t& d, const std::string&) { return f(d); };
    program p{def->name, def->kind, def->summary, def->variants, def->dims, std::move(flops), def->bytes, def->data, {}};
    p.make = [def](const dims_t& dims, unsigned seed) -> std::unique_ptr<program_case> {
        return std::make_unique<typed_case<Data>>(def, def->inputs(dims, seed));
    };
    return p;
}

template <typename Data>
bool register_program(program_def<Data> d) {
    registry().push_back(make_program(std::move(d)));
    return true;
}

} // namespace tk::host

// Registers a program_def at start-up: TKLAB_PROGRAM(id, tk::host::program_def<D>{...});
#define TKLAB_PROGRAM(id, ...) \
    static const bool tklab_registered_##id = ::tk::host::register_program(__VA_ARGS__)
