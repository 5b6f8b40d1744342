// `gpu` (ours): the cost table of one pair in strips of S = 32*R rows, one warp per strip,
// rows held in registers, columns swept GROUP = 4 at a time; only strip boundary rows touch
// global memory.
//
// Warps take strips in order from one atomic ticket, so a strip's predecessor was taken by a
// warp that is running: waiting on it cannot deadlock (and a wait longer than
// WAIT_LIMIT_CYCLES sets the error word instead of hanging). Lane l holds rows
// r0 + l*R + 1 .. + R of strip s (r0 = s*S) and at step t computes the R x 4 cells of column group u = t - l: one
// group behind lane l-1, whose bottom row it receives by a shuffle. Lane 0 reads the strip's
// entry row (the previous strip's bottom row) from global memory in windows: when its window
// is used up it polls the predecessor's flag (groups published) and every lane loads one of
// the next <= 32 published groups (it waits until WINDOW_MIN are, or all: a round trip per few
// groups would cost more than the wait); lane 31 writes the strip's bottom row and publishes its
// progress every PUBLISH groups (release store: a fence, so not every group; readers acquire,
// then load through L2).
// Bottom rows go to slot s % slots. With slots = 2 memory is linear: strip s overwrites group
// u of slot s % 2 only after strip s-1 published group u, which it did after reading group u
// of that slot. With slots = strips every boundary row is kept (checkpoints for the traceback),
// and the cost columns every CKPT_GROUPS groups go to `cols` as well.
//
// A cell is min(diag + sub, min(up, left) + indel): one min, one add-min (DPX __viaddmin_s32 on
// sm_90), one add and sub. PRMT = true: sub is one byte permute of the row's costs against b
// codes 0..7 (two registers per row, costs fit a signed byte); else a compare and a select.
// Rows past n (code PAD_A) and columns past m (code PAD_B) compute values nothing reads.

// GROUP, PUBLISH and WINDOW_MIN are solver.DEFINES: NVRTC gets them as -D, nvcc builds read the
// generated header; WAIT_LIMIT_CYCLES comes from the shared device header.
#include "splicedalign_device.cuh"
#ifndef __CUDACC_RTC__
#include "strips.defines.h"
#endif

namespace {

__device__ __forceinline__ int4 shfl_up4(int4 v) {
    return make_int4(__shfl_up_sync(0xffffffffu, v.x, 1), __shfl_up_sync(0xffffffffu, v.y, 1),
                     __shfl_up_sync(0xffffffffu, v.z, 1), __shfl_up_sync(0xffffffffu, v.w, 1));
}

__device__ __forceinline__ int4 shfl4(int4 v, int src) {
    return make_int4(__shfl_sync(0xffffffffu, v.x, src), __shfl_sync(0xffffffffu, v.y, src),
                     __shfl_sync(0xffffffffu, v.z, src), __shfl_sync(0xffffffffu, v.w, src));
}

__device__ __forceinline__ int get(const int4& v, int c) {
    return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w;
}

// PRMT selector that sign-extends byte `code` of (lo, hi) to 32 bits.
__device__ __forceinline__ unsigned selector(unsigned code) {
    const unsigned s = code | 8u;
    return code | (s << 4) | (s << 8) | (s << 12);
}

__host__ __device__ constexpr int words(int r) { return (r + 3) / 4; }

// One column group of one lane: cells of rows k = 0..R-1 (registers col[k], holding the
// previous column) and columns 4u+1..4u+4. `top` = the row above (its 4 values), `diag` = the
// cell above-left of the group. Returns the group's bottom row. SNAP: also keep column `want`
// (0..3) of every row in snap[] (the group holding column m). DIRS: also OR each cell's move
// into dirs[] (2 bits at ((k % 4) * 4 + c) * 2 of word k / 4; dirs zeroed by the caller):
// 0 diagonal match, 1 diagonal mismatch, 2 up (a letter of a against a gap), 3 left, in that
// order of preference (records.OP_* codes).
template <int R, bool PRMT, bool SNAP, bool DIRS>
__device__ __forceinline__ int4 group(int (&col)[R], const unsigned (&plo)[R], const unsigned (&phi)[R],
                                      const unsigned char (&ak)[R], int4 top, int diag, uchar4 bg,
                                      int match, int mismatch, int indel, int want, int (&snap)[R],
                                      unsigned (&dirs)[words(R)]) {
    int out[GROUP];
    const unsigned char bc[GROUP] = {bg.x, bg.y, bg.z, bg.w};
#pragma unroll
    for (int c = 0; c < GROUP; ++c) {
        int d = c == 0 ? diag : get(top, c - 1);
        int up = get(top, c);
        const unsigned sel = selector(bc[c]);
#pragma unroll
        for (int k = 0; k < R; ++k) {
            const int left = col[k];
            const int sub = PRMT ? prmt(plo[k], phi[k], sel) : (ak[k] == bc[c] ? match : mismatch);
            const int v = addmin(min(up, left), indel, d + sub);
            if (DIRS) {
                const unsigned move = d + sub == v ? (ak[k] == bc[c] ? 0u : 1u) : (up + indel == v ? 2u : 3u);
                dirs[k / 4] |= move << (((k % 4) * 4 + c) * 2);
            }
            d = left;
            col[k] = v;
            up = v;
            if (SNAP && c == want) snap[k] = v;
        }
        out[c] = up;
    }
    return make_int4(out[0], out[1], out[2], out[3]);
}

}  // namespace

// a: codes of seq1 padded with PAD_A to strips*S; b4: codes of seq2 in groups of 4, padded with
// PAD_B to `groups` groups; rows: slots x groups int4 (slot s%slots = D[(s+1)S][1..4*groups]);
// flags: per strip, groups published (zeroed); ticket: zeroed; cols: when ckpt_groups > 0,
// column q*4*ckpt_groups of rows 1..n at cols[(q-1)*n + i-1]; result[0] = D[n][m].
template <int R, bool PRMT>
__global__ void __launch_bounds__(128) nw_strips(const unsigned char* __restrict__ a,
                                                 const uchar4* __restrict__ b4, int n, int m,
                                                 int groups, int strips, int match, int mismatch,
                                                 int indel, int4* rows, int slots, int* flags,
                                                 int* ticket, int* __restrict__ cols, int ckpt_groups,
                                                 int* result, int* error) {
    constexpr int S = 32 * R;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int last_group = (m - 1) / GROUP;
    const int last_c = (m - 1) % GROUP;
    for (;;) {
        int s = 0;
        if (lane == 0) s = atomicAdd(ticket, 1);
        s = __shfl_sync(0xffffffffu, s, 0);
        if (s >= strips) return;
        const int r0 = s * S;
        const int first = r0 + lane * R + 1;  // this lane's first table row
        int col[R];
        unsigned char ak[R];
        unsigned plo[R], phi[R];
        int snap[R];
#pragma unroll
        for (int k = 0; k < R; ++k) {
            ak[k] = a[first - 1 + k];
            col[k] = (first + k) * indel;
            snap[k] = 0;
            // costs of row k against b codes 0..7 as signed bytes (a code never equals 4..7
            // of b, since a's wildcard is 4 and b's are 5 and PAD_B; PAD_A equals nothing)
            unsigned lo = 0, hi = 0;
#pragma unroll
            for (int code = 0; code < 4; ++code)
                lo |= (static_cast<unsigned>(ak[k] == code ? match : mismatch) & 0xffu) << (8 * code);
#pragma unroll
            for (int code = 0; code < 4; ++code) hi |= (static_cast<unsigned>(mismatch) & 0xffu) << (8 * code);
            plo[k] = lo;
            phi[k] = hi;
        }
        unsigned unused[words(R)] = {};
        int diag = (first - 1) * indel;  // D[first-1][4u] for the next group u
        int4 bot = make_int4(0, 0, 0, 0);
        int4 win = make_int4(0, 0, 0, 0);
        int win_base = 0, win_end = 0;
        const int4* prev = rows + static_cast<long long>((s + slots - 1) % slots) * groups;
        int4* mine = rows + static_cast<long long>(s % slots) * groups;
        const bool publish = s + 1 < strips;
        for (int t = 0; t < groups + 31; ++t) {
            const int u = t - lane;
            int4 top = shfl_up4(bot);
            if (t < groups) {  // lane 0 enters group t
                int4 entry;
                if (s == 0) {
                    const int j = GROUP * t;
                    entry = make_int4((j + 1) * indel, (j + 2) * indel, (j + 3) * indel, (j + 4) * indel);
                } else {
                    if (t >= win_end) {
                        int avail = 0;
                        if (lane == 0) {
                            const long long start = clock64();
                            const int need = min(groups, t + WINDOW_MIN);
                            while ((avail = load_acquire(flags + s - 1)) < need) {
                                if (clock64() - start > WAIT_LIMIT_CYCLES) {
                                    atomicExch(error, 1);
                                    avail = groups;
                                    break;
                                }
                            }
                        }
                        avail = __shfl_sync(0xffffffffu, avail, 0);
                        win_base = t;
                        win_end = min(avail, t + 32);
                        if (t + lane < win_end) win = __ldcg(prev + t + lane);
                    }
                    entry = shfl4(win, t - win_base);
                }
                if (lane == 0) top = entry;
            }
            if (u >= 0 && u < groups) {
                const uchar4 bg = __ldg(b4 + u);
                if (u == last_group) {
                    bot = group<R, PRMT, true, false>(col, plo, phi, ak, top, diag, bg, match, mismatch, indel, last_c,
                                                      snap, unused);
#pragma unroll
                    for (int k = 0; k < R; ++k)
                        if (first + k == n) result[0] = snap[k];
                } else {
                    bot = group<R, PRMT, false, false>(col, plo, phi, ak, top, diag, bg, match, mismatch, indel, 0, snap,
                                                       unused);
                }
                diag = top.w;
                if (ckpt_groups > 0 && (u + 1) % ckpt_groups == 0 && GROUP * (u + 1) <= m) {
                    int* out = cols + static_cast<long long>((u + 1) / ckpt_groups - 1) * n + (first - 1);
#pragma unroll
                    for (int k = 0; k < R; ++k)
                        if (first + k <= n) out[k] = col[k];
                }
                if (lane == 31 && publish) {
                    mine[u] = bot;
                    if ((u + 1) % PUBLISH == 0 || u + 1 == groups) store_release(flags + s, u + 1);
                }
            }
        }
    }
}

// The alignment from the checkpoints nw_strips kept (rows[k-1] = D[k*S][1..], cols[q-1] =
// D[1..n][q*C]), by one warp: from (i, j) = (n, m), the block of rows k*S+1..i and columns
// q*C+1..j holding it (k = (i-1)/S, q = (j-1)/C) is recomputed from its top row and left
// column as in nw_strips (lane l rows l*R.., a 4-column group per step) with each cell's move
// in shared memory (2 bits), then lane 0 follows the moves to the block's first row or column,
// writing them to ops[] (last move first), and the next block is the one holding the new
// (i, j). state = {moves written, i, j} at the end (i = 0 or j = 0: the rest is all gaps).
// Dynamic shared memory: (C / GROUP) * 32 * words(R) words.
template <int R>
__global__ void __launch_bounds__(32) nw_walk(const unsigned char* __restrict__ a, const uchar4* __restrict__ b4,
                                              int n, int m, int groups, int match, int mismatch, int indel,
                                              const int* __restrict__ rows, const int* __restrict__ cols,
                                              int cols_every, signed char* __restrict__ ops, int* state) {
    constexpr int S = 32 * R;
    constexpr int W = words(R);
    extern __shared__ unsigned moves[];  // [group in block][lane][W]
    const int lane = static_cast<int>(threadIdx.x);
    const int4* rows4 = reinterpret_cast<const int4*>(rows);
    int i = n, j = m, count = 0;
    while (i > 0 && j > 0) {
        const int k = (i - 1) / S, q = (j - 1) / cols_every;
        const int r0 = k * S, c0 = q * cols_every, g0 = c0 / GROUP;
        const int ng = (j - 1) / GROUP - g0 + 1;
        const int first = r0 + lane * R + 1;
        // D[row][c0], the block's left column (and its corner for row r0)
        auto left_of = [&](int row) {
            if (q == 0) return row * indel;
            if (row == 0) return c0 * indel;
            return row <= n ? cols[static_cast<long long>(q - 1) * n + row - 1] : 0;
        };
        int col[R];
        unsigned char ak[R];
        unsigned plo[R], phi[R];
        int snap[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            col[r] = left_of(first + r);
            ak[r] = a[first - 1 + r];
            plo[r] = phi[r] = 0;
            snap[r] = 0;
        }
        int diag = left_of(first - 1);
        int4 bot = make_int4(0, 0, 0, 0);
        int4 win = make_int4(0, 0, 0, 0);
        for (int t = 0; t < ng + 31; ++t) {
            const int u = t - lane;
            int4 top = shfl_up4(bot);
            if (t < ng) {
                if (k > 0 && t % 32 == 0 && t + lane < ng)
                    win = __ldcg(rows4 + static_cast<long long>(k - 1) * groups + g0 + t + lane);
                int4 entry;
                if (k == 0) {
                    const int c = c0 + GROUP * t;
                    entry = make_int4((c + 1) * indel, (c + 2) * indel, (c + 3) * indel, (c + 4) * indel);
                } else {
                    entry = shfl4(win, t % 32);
                }
                if (lane == 0) top = entry;
            }
            if (u >= 0 && u < ng) {
                unsigned dirs[W] = {};
                bot = group<R, false, false, true>(col, plo, phi, ak, top, diag, __ldg(b4 + g0 + u), match, mismatch,
                                                   indel, 0, snap, dirs);
                diag = top.w;
#pragma unroll
                for (int w = 0; w < W; ++w) moves[(u * 32 + lane) * W + w] = dirs[w];
            }
        }
        __syncwarp();
        if (lane == 0) {
            int bi = i - r0, bj = j - c0;
            int cached = -1;  // the word of moves last read (16 cells: consecutive moves often share it)
            unsigned word = 0;
            while (bi > 0 && bj > 0) {
                const int l = (bi - 1) / R, r = (bi - 1) % R, u = (bj - 1) / GROUP, c = (bj - 1) % GROUP;
                const int at = (u * 32 + l) * W + r / 4;
                if (at != cached) {
                    word = moves[at];
                    cached = at;
                }
                const unsigned move = (word >> (((r % 4) * 4 + c) * 2)) & 3u;
                ops[count++] = static_cast<signed char>(move);
                bi -= move != 3u;
                bj -= move != 2u;
            }
            i = r0 + bi;
            j = c0 + bj;
        }
        i = __shfl_sync(0xffffffffu, i, 0);
        j = __shfl_sync(0xffffffffu, j, 0);
        count = __shfl_sync(0xffffffffu, count, 0);
        __syncwarp();
    }
    if (lane == 0) {
        state[0] = count;
        state[1] = i;
        state[2] = j;
    }
}

#ifndef __CUDACC_RTC__
// nvcc builds (CI's compile and spill check) instantiate the shipped variants; NVRTC
// instantiates only the one a launch asks for (solver.VARIANTS).
#define NW_STRIPS(R, PRMT)                                                                              \
    template __global__ void nw_strips<R, PRMT>(const unsigned char*, const uchar4*, int, int, int, int, \
                                                int, int, int, int4*, int, int*, int*, int*, int, int*,   \
                                                int*);
NW_STRIPS(4, true)
NW_STRIPS(8, true)
NW_STRIPS(16, true)
NW_STRIPS(4, false)
NW_STRIPS(8, false)
NW_STRIPS(16, false)
#define NW_WALK(R)                                                                                      \
    template __global__ void nw_walk<R>(const unsigned char*, const uchar4*, int, int, int, int, int, int, \
                                        const int*, const int*, int, signed char*, int*);
NW_WALK(4)
NW_WALK(8)
NW_WALK(16)
#endif
