// `gpu` solver for the database search: inter-sequence parallelism in the style of CUDASW++ 4.0.
//
// A group of T threads (T divides 32) scores one database sequence (32-bit lanes, Lane32) or
// two adjacent ones of the length-sorted database (two 16-bit lanes per register, Lane16x2,
// whose best, if above plan.overflow_bound, may have wrapped: the host searches those pairs again
// on 32-bit lanes).
// Thread t of a group holds R consecutive query rows of the current pass in registers and
// sweeps the database columns one step behind thread t-1 (a wavefront inside the group):
// at step k it computes columns 2(k - t) and 2(k - t) + 1 of its rows, taking the bottom
// values of thread t-1's rows (and the columns' profile offsets) by shuffle. A query longer
// than R*T rows takes several passes; the last thread stores its bottom row for the next pass
// (double-buffered scratch).
//
// Shared memory set the pace of the earlier kernels (Nsight Compute: L1/TEX throughput 99%, ours
// and CUDASW++ 4.0's alike): here each pass copies its profile rows into shared memory with a
// row stride that keeps a group's 16-byte loads free of bank conflicts. A cell spends DPX only on
// its maxima (ALU pipe); the additions are plain VIADD.16x2 (__vadd2) and the letter pair's
// IMAD (FMA-heavy pipe). On an H100 neither pipe bounds the 32 x 8 kernel (ALU 62%, FMA-heavy
// 65% of peak, IPC 2.9 of 4): the F chain's latency does, three dependent instructions a row.
//
// Linear gap g (AFFINE false), kept shifted: G = H - g, profile s' = sbt + g; one DPX a cell:
//     d = G_diag + s'                     (VIADD; previous column only)
//     H = max(d, G_left, G_up, 0)         (VIMNMX3 .RELU; G_up = the row above, this column)
//     G = H - g                           (VIADD; the chain down the column: two instructions)
// Affine (Gotoh, BLAST's convention: a gap of length L costs oe + (L-1) e, oe = open + extend),
// H and E per row in registers, F down the column; three DPX a cell:
//     d = H_diag + sbt                    (VIADD)
//     H = max(d, E, F, 0)                 (VIMNMX3 .RELU)
//     t = H - oe                          (VIADD)
//     E' = max(E - e, t)                  (VIADDMNMX; the next column's E)
//     F' = max(F - e, t)                  (VIADDMNMX; the row below: the chain is H, t, F')
// E and F start at -oe (as from H = 0 on the border). Values handed between threads and
// passes are the bottom row's H (G in the linear kernel) and F.
// Cells on padding (rows past the query's end, columns past a sequence's end) score PAD
// (-1024): their values derive from real cells minus gaps and never raise the maximum,
// so every group runs its block's longest column count and loops stay block-uniform.

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
    __device__ static V add(V a, V b) { return a + b; }
    __device__ static V max3_relu(V a, V b, V c) { return __vimax3_s32_relu(a, b, c); }
    __device__ static V addmax(V a, V b, V c) { return __viaddmax_s32(a, b, c); }
    __device__ static V best(V a, V b) { return max(a, b); }  // H >= 0
    __device__ static int lane(V v, int) { return v; }
};

struct Lane16x2 {
    using V = unsigned int;  // two signed 16-bit H: low half sequence 2g, high half 2g+1
    using E = unsigned;      // profile element: a 16-bit score zero-extended (Profile below)
    static constexpr int LANES = 2;
    __device__ static V splat(int x) { return (unsigned)(x & 0xffff) | ((unsigned)(x & 0xffff) << 16); }
    __device__ static V add(V a, V b) { return __vadd2(a, b); }  // no carry between the halves
    __device__ static V max3_relu(V a, V b, V c) { return __vimax3_s16x2_relu(a, b, c); }
    __device__ static V addmax(V a, V b, V c) { return __viaddmax_s16x2(a, b, c); }
    __device__ static V best(V a, V b) { return __vimax_s16x2_relu(a, b); }  // H >= 0
    __device__ static int lane(V v, int k) { return (int)(short)(k ? v >> 16 : v & 0xffff); }
};

// Profile scores of my R rows for a column's letter(s), from the pass's slice in shared memory:
// `off` holds the byte offsets of my rows for lane 0's letter (low 16 bits) and lane 1's (high).
template <class L, int R> struct Profile;

template <int R> struct Profile<Lane32, R> {
    static_assert(R % 4 == 0, "R multiple of 4 (16-byte loads)");
    __device__ static void load(const unsigned char* smem, unsigned off, unsigned, int (&s)[R]) {
        const int4* p = reinterpret_cast<const int4*>(smem + (off & 0xffff));
#pragma unroll
        for (int v = 0; v < R / 4; ++v) {
            int4 x = p[v];
            s[4 * v] = x.x; s[4 * v + 1] = x.y; s[4 * v + 2] = x.z; s[4 * v + 3] = x.w;
        }
    }
};

template <int R> struct Profile<Lane16x2, R> {
    static_assert(R % 4 == 0, "R multiple of 4 (16-byte loads)");
    // Each profile element is a 16-bit score zero-extended to 32 bits, so a row's register for
    // the letter pair (a, b) is a + (b << 16), an exact 32-bit add. Written as a multiply-add by
    // a multiplier the compiler cannot fold (`lift` = 1 << 16), it runs as IMAD on the FMA pipe:
    // a constant shift becomes LEA, and interleaving 16-bit rows took a PRMT, both on the ALU
    // pipe, the kernel's bound (34 PRMT in the 32 x 8 step's ~240 ALU instructions).
    __device__ static void load(const unsigned char* smem, unsigned off, unsigned lift, unsigned (&s)[R]) {
        const uint4* a = reinterpret_cast<const uint4*>(smem + (off & 0xffff));
        const uint4* b = reinterpret_cast<const uint4*>(smem + (off >> 16));
#pragma unroll
        for (int v = 0; v < R / 4; ++v) {
            const uint4 x = a[v], y = b[v];
            s[4 * v] = y.x * lift + x.x;
            s[4 * v + 1] = y.y * lift + x.y;
            s[4 * v + 2] = y.z * lift + x.z;
            s[4 * v + 3] = y.w * lift + x.w;
        }
    }
};

// Blocks per SM the compiler must fit (registers: 65,536 / (blocks * SW_BLOCK) a thread): 4 warps
// per scheduler at 128 registers, but the affine kernel's two columns a step at R >= 28 need a
// few more (H and E of every row, a column's profile, the step's values of two columns) and
// would spill at 128; they get 168 and 3 warps per scheduler.
constexpr int min_blocks(int R, bool affine) { return (affine && R >= 28 ? 384 : 512) / SW_BLOCK; }

}  // namespace

// codes: concatenated database codes; offsets[k]..offsets[k+1] is sequence k. order: the
// sequences of this launch, longest first; group g takes order[g*LANES .. g*LANES+LANES).
// prof_g: SW_CODES x mpad profile (sbt, + gap in the linear kernel; PAD rows/columns = PAD
// likewise; 16-bit lanes: the 16-bit pattern zero-extended), mpad = passes*R*T; each pass copies its R*T rows into shared memory, SW_CODES x T
// x rs (the launch's dynamic shared memory): thread t's rows at t * rs (plan.row_stride: a
// stride of an odd number of 16-byte units keeps a group's loads free of bank conflicts).
// neg_gap: -oe (open + extend; -g, the linear gap); neg_extend: -e (affine only); both in every
// lane of a register (plan.lane_word: a splat in the kernel was recomputed every step, for
// want of a register).
// scratch: per group two buffers of its longest sequence's length (bottom rows between passes;
// unused with one pass), starting at 2 * scratch_base[group] (4 * in the affine kernel: H and F
// side by side, per buffer); sizing by each group's own length keeps a Swiss-Prot-shaped database (a few
// 35,000-letter sequences) in ~2 bytes of scratch per residue instead of groups x longest.
// out[order[...]] receives each sequence's score.
template <class L, int R, int T, bool AFFINE>
__global__ void __launch_bounds__(SW_BLOCK, min_blocks(R, AFFINE)) sw_inter(
    const unsigned char* __restrict__ codes, const long long* __restrict__ offsets,
    const int* __restrict__ order, int count, const typename L::E* __restrict__ prof_g, int mpad, int rs,
    int neg_gap, int neg_extend, typename L::V* __restrict__ scratch, const long long* __restrict__ scratch_base,
    int* __restrict__ out) {
    using V = typename L::V;
    using E = typename L::E;
    static_assert(32 % T == 0, "groups must not straddle warps");
    const int len = T * rs;  // a letter's rows in the shared slice
    constexpr int UNIT = 16 / (int)sizeof(E);
    extern __shared__ __align__(16) unsigned char smem_raw[];
    E* prof = reinterpret_cast<E*>(smem_raw);
    __shared__ int block_n;

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
    // block-uniform step count (the passes' shared slices need the whole block): the sequences
    // are sorted, so a block's 64 or so are of nearly one length and this costs little padding
    if (threadIdx.x == 0) block_n = 0;
    __syncthreads();
    const int warp_n = __reduce_max_sync(FULL, nmax);
    if (threadIdx.x % 32 == 0) atomicMax(&block_n, warp_n);
    __syncthreads();
    const int run_n = block_n;
    const int passes = mpad / (R * T);
    const V neg_g = (V)neg_gap;  // -g (linear) or -oe (affine) in every lane
    const V neg_e = (V)neg_extend;
    const V zero = L::splat(0);
    const unsigned lift = (1u << 16) + (blockDim.x >> 16);  // 1 << 16 (blockDim.x <= 1024), not foldable
    // the border: H = 0; handed-down value of H = 0 (G = -g in the linear kernel); E, F = -oe
    const V border = AFFINE ? zero : neg_g;
    const V low = neg_g;
    V best = zero;  // max H (>= 0)
    constexpr int FIELDS = AFFINE ? 2 : 1;  // H (and F) per buffer
    const long long stride = nmax;  // my buffers' length
    V* buf = scratch + (passes > 1 && gid * L::LANES < nseq ? scratch_base[gid] * 2 * FIELDS : 0);

    // shared-memory byte offsets of my rows: a letter's rows at letter * len elements, thread t's
    // at t * rs; a column's letter pair travels down the group as two 16-bit offsets (low half
    // lane 0's letter, high half lane 1's), each thread adding its row stride
    const unsigned row_step = (unsigned)(rs * sizeof(E)) * 0x10001u;
    auto offsets_of = [&](int c) {  // thread 0's offsets for column c >= 0 (padding past a sequence's end)
        unsigned x = 0;
#pragma unroll
        for (int q = 0; q < L::LANES; ++q)
            x |= (unsigned)((c < n[q] ? d[q][c] : SW_PAD_ROW) * len * (int)sizeof(E)) << (16 * q);
        return x;
    };
    const unsigned pad_offsets = (unsigned)(SW_PAD_ROW * len * (int)sizeof(E)) * (L::LANES == 2 ? 0x10001u : 1u);
    for (int p = 0; p < passes; ++p) {
        __syncthreads();  // every warp is done with the previous slice (and the scratch written)
        // the copy's addresses are recomputed every pass: hoisted out of the pass loop they
        // would stay live through it and spill (R = 32)
        int v0 = threadIdx.x;
        asm volatile("" : "+r"(v0));
        for (int v = v0; v < SW_CODES * R * T / UNIT; v += SW_BLOCK) {
            const int c = v / (R * T / UNIT), row = (v % (R * T / UNIT)) * UNIT;
            reinterpret_cast<uint4*>(prof + c * len + (row / R) * rs + row % R)[0] =
                reinterpret_cast<const uint4*>(prof_g + (long long)c * mpad + p * R * T + row)[0];
        }
        __syncthreads();
        V H[R];  // H (affine) or G = H - g (linear) of my rows at my previous column
        V Ev[AFFINE ? R : 1];  // E of my rows for my coming column (affine)
#pragma unroll
        for (int r = 0; r < R; ++r) H[r] = border;
        if constexpr (AFFINE) {
#pragma unroll
            for (int r = 0; r < R; ++r) Ev[r] = low;
        }
        // my last row's H (G in the linear kernel) and the F below it at my previous step's two
        // columns (a: the first, b: the second)
        V bottom_a = border, bottom_b = border, bottom_fa = low, bottom_fb = low;
        // offsets of my two columns: padding before column 0, so that a thread ahead of its
        // first column keeps the border values there (H = 0, E = F = -oe)
        unsigned off_a = t == 0 ? offsets_of(0) : pad_offsets + (unsigned)t * row_step;
        unsigned off_b = t == 0 ? offsets_of(1) : pad_offsets + (unsigned)t * row_step;
        V diag_in = border;    // the value above my first row at my previous column
        const V* above = buf + (p & 1 ? 0 : FIELDS * stride);  // written by pass p-1
        V* below = buf + (p & 1 ? FIELDS * stride : 0);
        const bool keep = p + 1 < passes;  // the bottom row goes to the next pass
        // Thread 0's inputs per column (the letters' offsets; the row above from the previous
        // pass) come in windows of T columns: thread t loads column w + t of the window after
        // next, and thread 0 takes columns 2k, 2k + 1 from threads 2k % T, 2k % T + 1 by
        // shuffle. Loaded by thread 0 column by column they cost ~30 instructions a step (64-bit
        // addresses, bounds, branches) next to the ~210 of a 32-row column's cells. The last
        // thread stores its bottom rows (H and F side by side: 8-byte stores) every step.
        // the row above (H, F of the previous pass's bottom row) at column c
        auto above_at = [&](int c, V& h, V& f) {
            h = border;
            f = low;
            if (c < nmax) {
                if constexpr (AFFINE) {
                    const uint2 x = reinterpret_cast<const uint2*>(above)[c];
                    h = (V)x.x;
                    f = (V)x.y;
                } else {
                    h = above[c];
                }
            }
        };
        unsigned win = offsets_of(t), win_next = offsets_of(T + t);
        V ab = border, ab_next = border, af = low, af_next = low;
        if (p > 0) {
            above_at(t, ab, af);
            above_at(T + t, ab_next, af_next);
        }
        // One column of my rows: its profile offsets `o`, the value above my first row at the
        // previous column (`diag0`) and at this one (`up`; `f` its F); leaves my bottom row's
        // value in `up` (linear) and F in `f`.
        auto column = [&](unsigned o, V diag0, V& up, V& f) {
            V s[R];
            Profile<L, R>::load(smem_raw, o, lift, s);
            // the diagonals first, off the chain: each reads the previous column's value of
            // the row above before the chain overwrites it
            V dg[R];
            dg[0] = L::add(diag0, s[0]);
#pragma unroll
            for (int r = 1; r < R; ++r) dg[r] = L::add(H[r - 1], s[r]);
#pragma unroll
            for (int r = 0; r < R; ++r) {
                if constexpr (AFFINE) {
                    const V h = L::max3_relu(dg[r], Ev[r], f);
                    const V tt = L::add(h, neg_g);  // H - oe
                    Ev[r] = L::addmax(Ev[r], neg_e, tt);
                    f = L::addmax(f, neg_e, tt);
                    H[r] = h;
                    best = L::best(best, h);
                } else {
                    const V h = L::max3_relu(dg[r], H[r], up);  // up: G of the row above
                    up = L::add(h, neg_g);
                    H[r] = up;
                    best = L::best(best, h);
                }
            }
        };
        // Two columns a step: a step's bookkeeping (shuffles of the offsets' sources, window
        // turns, loop control) and the register copies of the one-row shift of H come once per
        // two columns (a 32-row column took ~320 SASS instructions, ~210 of them cells, ~35
        // register moves), and the second column's F chain overlaps the first's: 592 SASS
        // instructions per two 32-row columns (affine, 16-bit lanes) against 329-354 per column;
        // the 20 CUDASW++ queries against 570,000 Swiss-Prot-shaped sequences on an H100 took
        // 1.656 s against 1.695 s with one column a step (-2.3%; 3 warps per scheduler at R >= 28
        // against 4 eat part of the -10% of instructions).
        const int steps = (run_n + 1) / 2 + T - 1;
        for (int k = 0; k < steps; ++k) {
            if (k > 0 && (2 * k) % T == 0) {  // the next window (block-uniform)
                win = win_next;
                win_next = offsets_of(2 * k + T + t);
                if (p > 0) {
                    ab = ab_next;
                    af = af_next;
                    above_at(2 * k + T + t, ab_next, af_next);
                }
            }
            V up_a = __shfl_up_sync(FULL, bottom_a, 1, T);
            V up_b = __shfl_up_sync(FULL, bottom_b, 1, T);
            V f_a = low, f_b = low;
            if constexpr (AFFINE) {
                f_a = __shfl_up_sync(FULL, bottom_fa, 1, T);
                f_b = __shfl_up_sync(FULL, bottom_fb, 1, T);
            }
            if (p > 0) {
                const int lane = (2 * k) % T;
                const V ab0 = __shfl_sync(FULL, ab, lane, T);
                const V ab1 = __shfl_sync(FULL, ab, lane + 1, T);
                if (t == 0) {
                    up_a = ab0;
                    up_b = ab1;
                }
                if constexpr (AFFINE) {
                    const V af0 = __shfl_sync(FULL, af, lane, T);
                    const V af1 = __shfl_sync(FULL, af, lane + 1, T);
                    if (t == 0) {
                        f_a = af0;
                        f_b = af1;
                    }
                }
            } else if (t == 0) {
                up_a = up_b = border;
                f_a = f_b = low;
            }
            const V in_a = up_a;  // the row above at column a: column b's first diagonal
            const V in_b = up_b;  // ... at column b: the next step's column a's
            column(off_a, diag_in, up_a, f_a);
            bottom_a = AFFINE ? H[R - 1] : up_a;
            bottom_fa = f_a;
            column(off_b, in_a, up_b, f_b);
            bottom_b = AFFINE ? H[R - 1] : up_b;
            bottom_fb = f_b;
            diag_in = in_b;
            // the next step's offsets, off the chain: its profile loads need not wait for a shuffle
            const int next = (2 * k + 2) % T;
            const unsigned src = next == 0 ? win_next : win;
            const unsigned off0 = __shfl_sync(FULL, src, next, T);
            const unsigned off1 = __shfl_sync(FULL, src, next + 1, T);
            off_a = __shfl_up_sync(FULL, off_a, 1, T) + row_step;
            off_b = __shfl_up_sync(FULL, off_b, 1, T) + row_step;
            if (t == 0) {
                off_a = off0;
                off_b = off1;
            }
            if (keep && t == T - 1) {  // my bottom rows, for the next pass
                const int j = 2 * (k - (T - 1));  // my first column
                if (j >= 0 && j < nmax) {
                    if constexpr (AFFINE) {
                        reinterpret_cast<uint2*>(below)[j] = make_uint2((unsigned)bottom_a, (unsigned)bottom_fa);
                        if (j + 1 < nmax)
                            reinterpret_cast<uint2*>(below)[j + 1] = make_uint2((unsigned)bottom_b, (unsigned)bottom_fb);
                    } else {
                        below[j] = bottom_a;
                        if (j + 1 < nmax) below[j + 1] = bottom_b;
                    }
                }
            }
        }
    }
#pragma unroll
    for (int off = T / 2; off > 0; off >>= 1) best = L::best(best, __shfl_xor_sync(FULL, best, off, T));
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
#define SW_INTER(L, R, T, AFFINE)                                                                           \
    template __global__ void sw_inter<L, R, T, AFFINE>(const unsigned char*, const long long*, const int*, int,  \
                                                       const typename L::E*, int, int, int, int, typename L::V*,  \
                                                       const long long*, int*);
#define SW_INTER_RT(R, T)                                                                                       \
    SW_INTER(Lane32, R, T, false) SW_INTER(Lane16x2, R, T, false) SW_INTER(Lane32, R, T, true)                 \
    SW_INTER(Lane16x2, R, T, true)
SW_INTER_RT(8, 8)
SW_INTER_RT(12, 8)
SW_INTER_RT(16, 8)
SW_INTER_RT(20, 8)
SW_INTER_RT(24, 8)
SW_INTER_RT(28, 8)
SW_INTER_RT(32, 8)
SW_INTER_RT(8, 16)
SW_INTER_RT(16, 16)
SW_INTER_RT(24, 16)
SW_INTER_RT(16, 32)
#endif
