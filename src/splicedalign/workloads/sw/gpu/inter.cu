// `gpu` solver for the database search: inter-sequence parallelism in the style of CUDASW++ 4.0.
//
// A group of T threads (T divides 32) scores one database sequence (32-bit lanes, Lane32) or
// two adjacent ones of the length-sorted database (two 16-bit lanes per register, Lane16x2,
// used only where every H provably fits: max_sbt * min(m, n) <= 32767, decided by the host).
// Thread t of a group holds R consecutive query rows of the current pass in registers and
// sweeps the database columns one step behind thread t-1 (a wavefront inside the group):
// at step k it computes column k - t of its rows, taking the bottom value of thread t-1's
// rows (and the column's letters) by shuffle. A query longer than R*T rows takes several
// passes; the last thread stores its bottom row for the next pass (double-buffered scratch).
//
// Left and diagonal neighbours are kept shifted, G = H - oe (oe = open + extend, the cost of
// a gap's first letter; a linear gap is open 0), with the profile holding s' = sbt + oe.
// Linear (AFFINE false): a cell is three DPX instructions on sm_90 (plus half a 3-way max for
// the running best), only the second on the dependency chain down the column:
//     x = max(G_diag + s', G_left, 0)     (add-max-relu; previous column only)
//     H = max(H_up - gap, x)              (add-max; the chain)
//     G = H - gap                         (add-max with -gap: H >= 0)
// Affine (Gotoh, AFFINE true), E per row in registers beside G, F down the column; five DPX
// instructions a cell (H itself is never formed; the running best is kept on G):
//     E = max(E - e, G_left)              (add-max; previous column only)
//     x = max(G_diag + s', E, 0)          (add-max-relu)
//     xm = x - oe                         (add-max with -oe: x >= 0)
//     G = max(F - oe, xm)                 (add-max: H = max(x, F))
//     F' = max(F - e, xm)                 (the chain: one add-max; H - oe = max(x, F) - oe and
//                                          F - oe <= F - e)
// E and F start at -oe (as from H = 0 on the border). Values handed between threads and
// passes are H (and F in the affine kernel).
// Cells on padding (rows past the query's end, columns past a sequence's end) score PAD
// (-1024 + gap): their values derive from real cells minus gaps and never raise the maximum,
// so every group runs its warp's longest column count and loops stay warp-uniform.

// SW_CODES (profile rows: the matrix's 24 letters and the padding row), SW_PAD_ROW and SW_BLOCK
// are plan.DEFINES: NVRTC gets them as -D, nvcc builds read the generated header.
#ifndef __CUDACC_RTC__
#include "inter.defines.h"
#endif

namespace {

constexpr unsigned FULL = 0xffffffffu;

struct Lane32 {
    using V = int;  // one H per register
    using E = int;  // profile element
    static constexpr int LANES = 1;
    __device__ static V splat(int x) { return x; }
    __device__ static V max2(V a, V b) { return max(a, b); }
    __device__ static V max3(V a, V b, V c) { return __vimax3_s32(a, b, c); }
    __device__ static V addmax_relu(V a, V b, V c) { return __viaddmax_s32_relu(a, b, c); }
    __device__ static V addmax(V a, V b, V c) { return __viaddmax_s32(a, b, c); }
    __device__ static V minus_gap(V h, V neg_g) { return h + neg_g; }
    __device__ static int lane(V v, int) { return v; }
};

struct Lane16x2 {
    using V = unsigned int;  // two signed 16-bit H: low half sequence 2g, high half 2g+1
    using E = short;
    static constexpr int LANES = 2;
    __device__ static V splat(int x) { return (unsigned)(x & 0xffff) | ((unsigned)(x & 0xffff) << 16); }
    __device__ static V max2(V a, V b) { return __vimax_s16x2_relu(a, b); }  // used on H >= 0 only
    __device__ static V max3(V a, V b, V c) { return __vimax3_s16x2(a, b, c); }
    __device__ static V addmax_relu(V a, V b, V c) { return __viaddmax_s16x2_relu(a, b, c); }
    __device__ static V addmax(V a, V b, V c) { return __viaddmax_s16x2(a, b, c); }
    // H >= 0 so H - gap >= -gap: max(H - gap, -gap) is H - gap, one DPX instruction
    __device__ static V minus_gap(V h, V neg_g) { return __viaddmax_s16x2(h, neg_g, neg_g); }
    __device__ static int lane(V v, int k) { return (int)(short)(k ? v >> 16 : v & 0xffff); }
};

// G-space profile scores of rows [row, row + R) for letter code(s) `letters` (8 bits each).
template <class L, int R> struct Profile;

template <int R> struct Profile<Lane32, R> {
    static_assert(R % 4 == 0, "R multiple of 4 (16-byte loads)");
    __device__ static void load(const int* prof, int mpad, int row, unsigned letters, int (&s)[R]) {
        const int4* p = reinterpret_cast<const int4*>(prof + (letters & 0xff) * mpad + row);
#pragma unroll
        for (int v = 0; v < R / 4; ++v) {
            int4 x = p[v];
            s[4 * v] = x.x; s[4 * v + 1] = x.y; s[4 * v + 2] = x.z; s[4 * v + 3] = x.w;
        }
    }
};

template <int R> struct Profile<Lane16x2, R> {
    static_assert(R % 8 == 0, "R multiple of 8 (16-byte loads)");
    __device__ static void load(const short* prof, int mpad, int row, unsigned letters, unsigned (&s)[R]) {
        const uint4* a = reinterpret_cast<const uint4*>(prof + (letters & 0xff) * mpad + row);
        const uint4* b = reinterpret_cast<const uint4*>(prof + ((letters >> 8) & 0xff) * mpad + row);
#pragma unroll
        for (int v = 0; v < R / 8; ++v) {
            uint4 x = a[v], y = b[v];
            const unsigned xs[4] = {x.x, x.y, x.z, x.w}, ys[4] = {y.x, y.y, y.z, y.w};
#pragma unroll
            for (int w = 0; w < 4; ++w) {  // interleave: (a_even, b_even), (a_odd, b_odd)
                s[8 * v + 2 * w] = __byte_perm(xs[w], ys[w], 0x5410);
                s[8 * v + 2 * w + 1] = __byte_perm(xs[w], ys[w], 0x7632);
            }
        }
    }
};

}  // namespace

// codes: concatenated database codes; offsets[k]..offsets[k+1] is sequence k. order: the
// sequences of this launch, longest first; group g takes order[g*LANES .. g*LANES+LANES).
// prof_g: SW_CODES x mpad profile (s' = sbt + gap; PAD rows/columns = PAD + gap), mpad = passes*R*T.
// gap: oe (open + extend; the linear gap); gap_extend: e (affine only).
// scratch: per group two buffers of its longest sequence's length (bottom rows between passes;
// unused with one pass), starting at 2 * scratch_base[group] (4 * in the affine kernel: H, then
// F, per buffer); sizing by each group's own length keeps a Swiss-Prot-shaped database (a few
// 35,000-letter sequences) in ~2 bytes of scratch per residue instead of groups x longest.
// out[order[...]] receives each sequence's score.
template <class L, int R, int T, bool SMEM, bool AFFINE>
__global__ void __launch_bounds__(SW_BLOCK) sw_inter(
    const unsigned char* __restrict__ codes, const long long* __restrict__ offsets,
    const int* __restrict__ order, int count, const typename L::E* __restrict__ prof_g, int mpad,
    int gap, int gap_extend, typename L::V* __restrict__ scratch, const long long* __restrict__ scratch_base,
    int* __restrict__ out) {
    using V = typename L::V;
    using E = typename L::E;
    static_assert(32 % T == 0, "groups must not straddle warps");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const E* prof = prof_g;
    if constexpr (SMEM) {
        E* sp = reinterpret_cast<E*>(smem_raw);
        const int total = SW_CODES * mpad;  // multiple of 8 elements: 16-byte copies
        const uint4* src = reinterpret_cast<const uint4*>(prof_g);
        uint4* dst = reinterpret_cast<uint4*>(sp);
        for (int v = threadIdx.x; v < total * (int)sizeof(E) / 16; v += SW_BLOCK) dst[v] = src[v];
        __syncthreads();
        prof = sp;
    }

    const int gid = (blockIdx.x * SW_BLOCK + threadIdx.x) / T;  // group
    const int t = threadIdx.x % T;
    const int nseq = count;
    // the group's sequences (absent ones have length 0: all padding)
    const unsigned char* d[L::LANES];
    int n[L::LANES];
    int nmax = 0;
#pragma unroll
    for (int k = 0; k < L::LANES; ++k) {
        const int slot = gid * L::LANES + k;
        if (slot < nseq) {
            const int s = order[slot];
            d[k] = codes + offsets[s];
            n[k] = (int)(offsets[s + 1] - offsets[s]);
        } else {
            d[k] = codes;
            n[k] = 0;
        }
        nmax = max(nmax, n[k]);
    }
    const int warp_n = __reduce_max_sync(FULL, nmax);  // warp-uniform step count
    const int passes = mpad / (R * T);
    const V neg_g = L::splat(-gap);
    const V neg_e = L::splat(-gap_extend);
    const V low = neg_g;  // G of H = 0; also E and F on the border
    const V zero = L::splat(0);
    V best = AFFINE ? low : zero;  // the affine kernel tracks the best G = H - oe
    constexpr int FIELDS = AFFINE ? 2 : 1;  // H (and F) per buffer
    const long long stride = nmax;  // my buffers' length
    V* buf = scratch + (passes > 1 && gid * L::LANES < nseq ? scratch_base[gid] * 2 * FIELDS : 0);

    for (int p = 0; p < passes; ++p) {
        V G[R];
        V E[AFFINE ? R : 1];
#pragma unroll
        for (int r = 0; r < R; ++r) G[r] = low;
        if constexpr (AFFINE) {
#pragma unroll
            for (int r = 0; r < R; ++r) E[r] = low;
        }
        V bottom = zero;       // H of my last row at my previous column
        V bottom_f = low;      // F below my last row at my previous column (affine)
        // letters of my previous column: padding before column 0, so that a thread ahead of
        // its first column keeps H = 0 there (the left border of the matrix)
        unsigned lt_mine = 0;
#pragma unroll
        for (int q = 0; q < L::LANES; ++q) lt_mine |= (unsigned)SW_PAD_ROW << (8 * q);
        V diag_in = zero;      // the H above my first row at my previous column
        const V* above = buf + (p & 1 ? 0 : FIELDS * stride);  // written by pass p-1
        V* below = buf + (p & 1 ? FIELDS * stride : 0);
        const int row0 = p * R * T + t * R;
        const int steps = warp_n + T - 1;
        // thread 0's inputs (the column's letters, the row above from the previous pass) are
        // loaded two steps ahead: a load on the step's critical path would stall the group
        auto letters_at = [&](int c) {
            unsigned x = 0;
#pragma unroll
            for (int q = 0; q < L::LANES; ++q) x |= (unsigned)(c < n[q] ? d[q][c] : SW_PAD_ROW) << (8 * q);
            return x;
        };
        auto above_at = [&](int c) { return (p > 0 && c < nmax) ? above[c] : zero; };
        auto above_f_at = [&](int c) { return (AFFINE && p > 0 && c < nmax) ? above[stride + c] : low; };
        unsigned lt1 = 0, lt2 = 0;
        V ab1 = zero, ab2 = zero, af1 = low, af2 = low;
        if (t == 0) {
            lt1 = letters_at(0);
            lt2 = letters_at(1);
            ab1 = above_at(0);
            ab2 = above_at(1);
            if constexpr (AFFINE) {
                af1 = above_f_at(0);
                af2 = above_f_at(1);
            }
        }
        for (int k = 0; k < steps; ++k) {
            const int j = k - t;  // my column
            V up = __shfl_up_sync(FULL, bottom, 1, T);
            V f = low;
            if constexpr (AFFINE) f = __shfl_up_sync(FULL, bottom_f, 1, T);
            unsigned lt = __shfl_up_sync(FULL, lt_mine, 1, T);
            if (t == 0) {
                lt = lt1;
                up = ab1;
                lt1 = lt2;
                ab1 = ab2;
                lt2 = letters_at(k + 2);
                ab2 = above_at(k + 2);
                if constexpr (AFFINE) {
                    f = af1;
                    af1 = af2;
                    af2 = above_f_at(k + 2);
                }
            }
            V diag = L::minus_gap(diag_in, neg_g);  // the G above my first row at column j - 1
            diag_in = up;
            V s[R];
            Profile<L, R>::load(prof, mpad, row0, lt, s);
            V h_prev = zero;
#pragma unroll
            for (int r = 0; r < R; ++r) {
                V h;  // H (linear) or G = H - oe (affine: H itself is never formed)
                if constexpr (AFFINE) {
                    E[r] = L::addmax(E[r], neg_e, G[r]);
                    const V x = L::addmax_relu(diag, s[r], E[r]);
                    const V xm = L::minus_gap(x, neg_g);  // x - oe (x >= 0)
                    h = L::addmax(f, neg_g, xm);          // G = max(x, F) - oe
                    f = L::addmax(f, neg_e, xm);          // the chain
                    diag = G[r];
                    G[r] = h;
                } else {
                    // off the chain: the diagonal and the left neighbour (previous column)
                    const V x = L::addmax_relu(diag, s[r], G[r]);
                    // the chain down the column: one instruction per row
                    h = L::addmax(up, neg_g, x);
                    diag = G[r];
                    G[r] = L::minus_gap(h, neg_g);
                }
                up = h;
                if (r & 1) best = L::max3(best, h_prev, h);  // no relu: G may be negative
                h_prev = h;
            }
            if constexpr (R % 2 == 1) best = L::max3(best, h_prev, h_prev);
            if constexpr (AFFINE) up = L::addmax(up, L::splat(gap), zero);  // H of my last row: G + oe (>= 0)
            bottom = up;
            bottom_f = f;
            lt_mine = lt;
            if (t == T - 1 && p + 1 < passes && j >= 0 && j < nmax) {
                below[j] = bottom;
                if constexpr (AFFINE) below[stride + j] = bottom_f;
            }
        }
        __syncwarp();  // the next pass reads what this pass's last threads stored
    }
    if constexpr (AFFINE) best = L::addmax(best, L::splat(gap), zero);  // the best G back to H (>= 0)
#pragma unroll
    for (int off = T / 2; off > 0; off >>= 1) best = L::max2(best, __shfl_xor_sync(FULL, best, off, T));
    if (t == 0) {
#pragma unroll
        for (int k = 0; k < L::LANES; ++k) {
            const int slot = gid * L::LANES + k;
            if (slot < nseq) out[order[slot]] = L::lane(best, k);
        }
    }
}

#ifndef __CUDACC_RTC__
// The instances the host may use: nvcc (CI) builds each to check it for spills; NVRTC builds
// only the one asked for (name expressions), so a module compiles in about a second.
#define SW_INTER(L, R, T, SMEM, AFFINE)                                                                       \
    template __global__ void sw_inter<L, R, T, SMEM, AFFINE>(const unsigned char*, const long long*, const int*, \
                                                             int, const typename L::E*, int, int, int,            \
                                                             typename L::V*, const long long*, int*);
#define SW_INTER_LANES(R, T, AFFINE)                                                                        \
    SW_INTER(Lane32, R, T, true, AFFINE) SW_INTER(Lane32, R, T, false, AFFINE)                              \
    SW_INTER(Lane16x2, R, T, true, AFFINE) SW_INTER(Lane16x2, R, T, false, AFFINE)
#define SW_INTER_RT(R, T) SW_INTER_LANES(R, T, false) SW_INTER_LANES(R, T, true)
SW_INTER_RT(8, 8)
SW_INTER_RT(16, 8)
SW_INTER_RT(24, 16)
SW_INTER_RT(16, 32)
SW_INTER_RT(24, 8)
SW_INTER_RT(32, 8)
SW_INTER_RT(8, 16)
SW_INTER_RT(16, 16)
#endif
