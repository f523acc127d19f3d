// An attention problem's data, shared by the program (attention.cu) and the
// tests: Q, K, V (batch, heads, N, D) in bf16 with seeded values in [-1, 1),
// O in bf16, on the device; the float64 CPU reference; and the launch of a
// variant by name. Host code, for the simulator and the GPU.
#pragma once
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include "kernels/attention/attention_kernel.cuh"
#include "tk/host/registry.h"

namespace attention {

struct Data {
    int b = 0, h = 0, n = 0, d = 0;
    bool causal = false;  // of the last run: what the reference must mask
    std::vector<tk::bf16> q, k, v;
    std::shared_ptr<tk::device_buffer<tk::bf16>> dq, dk, dv, dout;
    template <int D>
    attention::globals_t<D> globals() const {
        attention::globals_t<D> g{{dq->data(), b, h, n, d}, {dk->data(), b, h, n, d}, {dv->data(), b, h, n, d}, {dout->data(), b, h, n, d},
                                  float(1.4426950408889634 / std::sqrt(double(d)))};
        using causal = attention::layout<D, true>;  // every causal schedule walks items alike
        const auto order = causal::plan_order(b * h, n, int(tk::producer_consumer::grid<causal>(g).x));
        g.group_heads = order.group_heads, g.snake = order.snake;
        return g;
    }
};

inline Data make_inputs(const tk::host::dims_t& dims, unsigned seed) {
    Data g;
    g.b = dims.at("B"), g.h = dims.at("H"), g.n = dims.at("N"), g.d = dims.at("D");
    const size_t count = size_t(g.b) * g.h * g.n * g.d;
    g.q = tk::host::random_values<tk::bf16>(count, seed);
    g.k = tk::host::random_values<tk::bf16>(count, seed + 1);
    g.v = tk::host::random_values<tk::bf16>(count, seed + 2);
    g.dq = std::make_shared<tk::device_buffer<tk::bf16>>(count, g.q, "Q");
    g.dk = std::make_shared<tk::device_buffer<tk::bf16>>(count, g.k, "K");
    g.dv = std::make_shared<tk::device_buffer<tk::bf16>>(count, g.v, "V");
    g.dout = std::make_shared<tk::device_buffer<tk::bf16>>(count, "O");
    return g;
}

// What make_inputs takes: Q, K and V on the host; those and O on the device.
inline tk::host::data_size data_size(const tk::host::dims_t& dims) {
    const double count = double(dims.at("B")) * dims.at("H") * dims.at("N") * dims.at("D");
    return {.host = 3 * 2 * count, .device = 4 * 2 * count};
}

// softmax(Q K^T / sqrt(D)) V per (batch, head), in float64.
inline std::vector<double> reference(const Data& g, bool causal) {
    const auto q = tk::host::to_floats(g.q), k = tk::host::to_floats(g.k), v = tk::host::to_floats(g.v);
    std::vector<double> out(q.size()), p(size_t(g.n));
    const double scale = 1.0 / std::sqrt(double(g.d));
    for (size_t bh = 0; bh < size_t(g.b) * g.h; ++bh) {
        const size_t base = bh * g.n * g.d;
        for (int i = 0; i < g.n; ++i) {
            const int last = causal ? i : g.n - 1;
            double mx = -INFINITY;
            for (int j = 0; j <= last; ++j) {
                double s = 0;
                for (int x = 0; x < g.d; ++x) s += double(q[base + size_t(i) * g.d + x]) * k[base + size_t(j) * g.d + x];
                p[size_t(j)] = s * scale;
                mx = std::max(mx, p[size_t(j)]);
            }
            double sum = 0;
            for (int j = 0; j <= last; ++j) sum += p[size_t(j)] = std::exp(p[size_t(j)] - mx);
            for (int x = 0; x < g.d; ++x) {
                double o = 0;
                for (int j = 0; j <= last; ++j) o += p[size_t(j)] * v[base + size_t(j) * g.d + x];
                out[base + size_t(i) * g.d + x] = o / sum;
            }
        }
    }
    return out;
}

// The program's variants: "noncausal" and "causal" (the fastest schedule,
// ping-pong), and each with a suffix naming an earlier schedule
// ("causal_serial", "noncausal_pipelined", ...) to compare against.
inline const std::vector<std::string>& variants() {
    static const std::vector<std::string> names = {"noncausal", "causal", "noncausal_pipelined", "causal_pipelined",
                                                   "noncausal_serial", "causal_serial"};
    return names;
}

inline bool is_causal(const std::string& variant) { return variant.rfind("causal", 0) == 0; }

// Calls f(layout<D, Causal, Schedule>{}) for the variant and g's head dimension.
template <typename F>
void with_layout(const Data& g, const std::string& variant, F&& f) {
    const bool causal = is_causal(variant);
    const std::string sched = variant.find('_') == std::string::npos ? "" : variant.substr(variant.find('_') + 1);
    auto pick = [&](auto d) {
        constexpr int D = decltype(d)::value;
        auto with_schedule = [&](auto c) {
            constexpr bool C = decltype(c)::value;
            if (sched.empty()) f(layout<D, C, schedule::pingpong>{});
            else if (sched == "pipelined") f(layout<D, C, schedule::pipelined>{});
            else if (sched == "serial") f(layout<D, C, schedule::serial>{});
            else throw std::invalid_argument("attention: no variant \"" + variant + "\"; the variants are noncausal and causal, each also with _pipelined or _serial");
        };
        causal ? with_schedule(std::true_type{}) : with_schedule(std::false_type{});
    };
    if (g.d == 64) pick(std::integral_constant<int, 64>{});
    else if (g.d == 128) pick(std::integral_constant<int, 128>{});
    else throw std::invalid_argument("attention: D = " + std::to_string(g.d) + " is not built; use D=64 or D=128");
}

inline void run_variant(Data& g, const std::string& variant) {
    g.causal = is_causal(variant);
    with_layout(g, variant, [&](auto l) {
        using L = decltype(l);
        tk::producer_consumer::launch<L>(g.causal ? "attention_causal" : "attention", g.globals<L::globals::d>());
    });
}

} // namespace attention
