// Register vectors: one value per row or per column of a register tile,
// replicated so each lane holds exactly the entries its fragments touch.
//   vec_ortho: per 16 entries, a lane holds entries g and g+8 (g = lane/4)
//   vec_align: per 16 entries, a lane holds 2t, 2t+1, 2t+8, 2t+9 (t = lane%4)
// A row-layout tile's col_vec (one per row) is ortho; its row_vec is align.
#pragma once
#include "tk/common/base.h"
#include "tk/common/dtypes.h"

namespace tk {

struct vec_ortho { static constexpr int per_chunk = 2; };
struct vec_align { static constexpr int per_chunk = 4; };

template <typename T, int N, typename VL = vec_ortho>
struct rv {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, bf16> || std::is_same_v<T, half>,
                  "tk::rv<T, N>: T must be float, tk::bf16 or tk::half");
    static_assert(N > 0 && N % 16 == 0, "tk::rv<T, N>: N must be a positive multiple of 16 (it pairs with 16x16 tiles)");
    static_assert(std::is_same_v<VL, vec_ortho> || std::is_same_v<VL, vec_align>, "tk::rv layout must be tk::vec_ortho or tk::vec_align");
    using dtype = T;
    using layout = VL;
    static constexpr int length = N, chunks = N / 16, per_chunk = VL::per_chunk;
    static constexpr int registers = (chunks * per_chunk * int(sizeof(T)) + 3) / 4;
    T data[chunks][per_chunk];

    // The entry this lane holds in slot j of a chunk.
    TK_HOST_DEVICE static constexpr int index_of(int lane, int chunk, int j) {
        if constexpr (std::is_same_v<VL, vec_ortho>) return 16 * chunk + lane / 4 + 8 * j;
        else return 16 * chunk + 2 * (lane % 4) + (j % 2) + 8 * (j / 2);
    }

#if defined(TK_SIM)
    rv(TK_LOC) { tklab::sim::reg_alloc(registers, loc.file, loc.line); }
    rv(const rv& o, TK_LOC) {
        tklab::sim::reg_alloc(registers, loc.file, loc.line);
        copy_data(o);
    }
    rv& operator=(const rv& o) { copy_data(o); return *this; }
    ~rv() { tklab::sim::reg_free(registers); }
private:
    void copy_data(const rv& o) {
        TK_UNROLL
        for (int c = 0; c < chunks; ++c)
            TK_UNROLL
            for (int j = 0; j < per_chunk; ++j) data[c][j] = o.data[c][j];
    }
public:
#endif
};

template <int N, typename VL = vec_ortho> using rv_fl = rv<float, N, VL>;
template <int N, typename VL = vec_ortho> using rv_bf = rv<bf16, N, VL>;
template <int N, typename VL = vec_ortho> using rv_hf = rv<half, N, VL>;

template <typename X> struct is_rv : std::false_type {};
template <typename T, int N, typename VL> struct is_rv<rv<T, N, VL>> : std::true_type {};
template <typename X> inline constexpr bool is_rv_v = is_rv<std::remove_cvref_t<X>>::value;

} // namespace tk
