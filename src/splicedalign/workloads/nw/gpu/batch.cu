// `gpu` batches: one warp per pair, the pair's band of W = 32 C diagonals lo .. lo + W - 1
// (j - i) swept row by row, lane l holding band cells t = l C .. l C + C - 1 (cell t of row i
// is column j = i + lo + t) in registers: H (and D, affine) of the row above. Per row:
//   D = min(H_up + o + e, D_up + e) (linear: H_up + e), M = H_diag + sub, H' = min(M, D),
//   I[t] = min_{s < t} H'[s] + o + (t - s) e   (Gotoh's I: opening from an I never wins),
//   H = min(H', I).
// Up is cell t + 1 of the row above (the next register, or lane l + 1's first by a shuffle),
// diagonal is cell t. I is a prefix minimum: each lane's best candidate at its right end, a
// Kogge-Stone scan over the 32 lanes (a shift of d lanes costs d C e), then the lane's cells in
// order. Cells outside 0 <= j <= m hold BAND_INF; column 0 holds the mode's boundary.
// With `dirs`, each cell's moves are kept (linear 2 bits: H from =, X, D, I; affine 4 bits: H's
// source in bits 0-1 (M, D, I with H' = M, I with H' = D), D opened in bit 2, I opened in bit 3),
// lane words side by side per row, and the warp walks the path back from the end cell writing
// runs (length << 2 | op, op one of OP_M (=), OP_X, OP_D, OP_I) from the end backwards; linear
// moves say = or X themselves (2 bits: OP_M, OP_X, OP_D, OP_I), affine ones take it from the
// letters. nw_band_text then writes each pair's CIGAR. batch.py's docstring has the certificate.

#include "splicedalign_device.cuh"
#ifndef __CUDACC_RTC__
#include "batch.defines.h"
#endif

namespace {

constexpr int LANES = 32;
constexpr unsigned FULL = 0xffffffffu;
constexpr unsigned char PAD = 7;  // a letter outside b: equal to nothing

struct PairDesc {
    long long a, b;  // offsets of the sequences in `seqs`
    int n, m, lo;
    long long dirs, runs;  // offsets of the pair's moves (words) and runs
};

__device__ __forceinline__ PairDesc load_desc(const long long* desc, int w) {
    const long long* d = desc + 7LL * w;
    return PairDesc{d[0], d[1], int(d[2]), int(d[3]), int(d[4]), d[5], d[6]};
}

__device__ __forceinline__ unsigned char letter(const unsigned char* s, long long at, int size) {
    return at >= 0 && at < size ? s[at] : PAD;
}

}  // namespace

template <int C, bool AFFINE>
__global__ void __launch_bounds__(BAND_WARPS * LANES) nw_band(
    const unsigned char* __restrict__ seqs, const long long* __restrict__ desc, int pairs, int mode, int match,
    int mismatch, int open, int extend, unsigned* __restrict__ dirs, unsigned* __restrict__ runs,
    int* __restrict__ out) {
    constexpr int BITS = AFFINE ? 4 : 2;
    constexpr int PER_WORD = 32 / BITS;
    constexpr int WPL = (C * BITS + 31) / 32;
    constexpr int W = LANES * C;
    const int lane = threadIdx.x % LANES;
    const int w = blockIdx.x * BAND_WARPS + threadIdx.x / LANES;
    if (w >= pairs) return;  // the whole warp
    const PairDesc p = load_desc(desc, w);
    const unsigned char* a = seqs + p.a;
    const unsigned char* b = seqs + p.b;
    const int n = p.n, m = p.m, lo = p.lo;
    const int e = extend, oe = open + extend;
    const bool trace = dirs != nullptr;
    const int t0 = lane * C;  // this lane's first band cell

    int H[C];
    int D[C];
    // row 0: H[0][j] = 0 (j = 0 or infix), else o + j e; D = INF
#pragma unroll
    for (int k = 0; k < C; ++k) {
        const int j = lo + t0 + k;
        H[k] = j < 0 || j > m ? BAND_INF : (j == 0 || mode == MODE_INFIX) ? 0 : open + j * e;
        D[k] = BAND_INF;
    }
    // b's letters of this lane's cells, 4 to a word: byte k of the window is b[i + lo + t0 + k - 1]
    // at row i; the window slides one letter a row (lane 31 takes the next from a 32-row buffer).
    unsigned bw[C / 4];
#pragma unroll
    for (int q = 0; q < C / 4; ++q) {
        unsigned word = 0;
#pragma unroll
        for (int x = 0; x < 4; ++x) word |= unsigned(letter(b, 0LL + lo + t0 + 4 * q + x - 1, m)) << (8 * x);
        bw[q] = word;
    }
    // 32-row buffers, one letter per lane: a[i0 + lane] and b[i0 + lo + W - 1 + lane] (the letter
    // lane 31's window takes in at row i0 + lane + 1), the next block's loaded one block ahead
    unsigned char a_now = letter(a, lane, n), b_now = letter(b, 0LL + lo + W - 1 + lane, m);
    unsigned char a_next = letter(a, LANES + lane, n), b_next = letter(b, 0LL + LANES + lo + W - 1 + lane, m);
    unsigned* row_dirs = trace ? dirs + p.dirs : nullptr;

    for (int i = 1; i <= n; ++i) {
        const int r = (i - 1) % LANES;
        if (r == 0 && i > 1) {
            a_now = a_next;
            b_now = b_next;
            a_next = letter(a, 0LL + i - 1 + LANES + lane, n);
            b_next = letter(b, 0LL + i - 1 + LANES + lo + W - 1 + lane, m);
        }
        const unsigned ai = __shfl_sync(FULL, a_now, r);
        // slide the window: byte k takes byte k + 1 (the next lane's first for the last)
        const unsigned incoming = __shfl_down_sync(FULL, bw[0] & 0xffu, 1);
        const unsigned buffered = __shfl_sync(FULL, unsigned(b_now), r);
        const unsigned last = lane == LANES - 1 ? buffered : incoming;
#pragma unroll
        for (int q = 0; q < C / 4; ++q) {
            const unsigned hi = q + 1 < C / 4 ? bw[q + 1] : last;
            bw[q] = __funnelshift_r(bw[q], hi, 8);
        }
        const unsigned ai4 = ai * 0x01010101u;
        int h_up_last = __shfl_down_sync(FULL, H[0], 1);
        int d_up_last = __shfl_down_sync(FULL, D[0], 1);
        if (lane == LANES - 1) h_up_last = d_up_last = BAND_INF;
        const int jt = i + lo + t0;  // column of this lane's cell 0
        // cells outside 1..m: rows where the band crosses column 0 or m (warp-uniform)
        const bool edge = i + lo <= 0 || i + lo + W - 1 > m;
        unsigned moves[WPL];
#pragma unroll
        for (int q = 0; q < WPL; ++q) moves[q] = 0;
#pragma unroll
        for (int k = 0; k < C; ++k) {
            const int h_up = k + 1 < C ? H[k + 1] : h_up_last;
            const int d_up = k + 1 < C ? D[k + 1] : d_up_last;
            const unsigned eq = __vcmpeq4(ai4, bw[k / 4]);
            const bool same = (eq >> (8 * (k % 4))) & 1u;
            const int sub = same ? match : mismatch;
            const int mm = H[k] + sub;
            int dd;
            unsigned bits = 0;
            if (AFFINE) {
                dd = min(h_up + oe, d_up + e);
                bits |= (h_up + oe <= d_up + e ? 4u : 0u);
            } else {
                dd = h_up + e;
            }
            bits |= AFFINE ? (mm <= dd ? 0u : 1u) : mm <= dd ? (same ? unsigned(OP_M) : unsigned(OP_X)) : unsigned(OP_D);
            int hp = min(mm, dd);
            if (edge) {
                const int j = jt + k;
                if (j < 0 || j > m) hp = dd = BAND_INF;
                if (j == 0) hp = dd = open + i * e;
            }
            H[k] = hp;
            D[k] = dd;
            moves[k / PER_WORD] |= bits << (BITS * (k % PER_WORD));
        }
        // I: the lane's best candidate at its right end, then the scan over lanes
        // (4 independent chains: the lane's cells are C dependent DPX steps otherwise)
        int acc[4] = {BAND_INF, BAND_INF, BAND_INF, BAND_INF};
#pragma unroll
        for (int k = 0; k < C; ++k) acc[k % 4] = addmin(H[k], oe + (C - 1 - k) * e, acc[k % 4]);
        int right = min(min(min(acc[0], acc[1]), min(acc[2], acc[3])), BAND_INF);
#pragma unroll
        for (int d = 1; d < LANES; d *= 2) {
            const int v = __shfl_up_sync(FULL, right, d);
            if (lane >= d) right = min(right, min(v + d * C * e, BAND_INF));
        }
        int in = __shfl_up_sync(FULL, right, 1);
        if (lane == 0) in = BAND_INF;
        // whether I at this lane's cell 0 was opened: by the previous lane's last cell
        unsigned opened = 1u;
#pragma unroll
        for (int k = 0; k < C; ++k) {
            const int ik = in;
            // cell 0's open bit needs the previous lane's last step: set after the loop
            if (AFFINE && k > 0) moves[k / PER_WORD] |= (opened << 3) << (BITS * (k % PER_WORD));
            const int hp = H[k];
            if (ik < hp) moves[k / PER_WORD] |= (AFFINE ? 2u : unsigned(OP_I)) << (BITS * (k % PER_WORD));
            H[k] = min(hp, ik);
            opened = hp + oe <= ik + e ? 1u : 0u;
            in = addmin(ik, e, hp + oe);
        }
        if (AFFINE) {
            unsigned first = __shfl_up_sync(FULL, opened, 1);
            if (lane == 0) first = 1u;
            moves[0] |= first << 3;
        }
        if (edge) {
#pragma unroll
            for (int k = 0; k < C; ++k) {
                const int j = jt + k;
                if (j < 0 || j > m) H[k] = BAND_INF;
                if (j == 0) H[k] = open + i * e;
            }
        }
        if (trace) {
#pragma unroll
            for (int q = 0; q < WPL; ++q) row_dirs[(long long)(i - 1) * LANES * WPL + q * LANES + lane] = moves[q];
        }
    }

    // the score: H[n][m] (global), else the least of row n (the first column of a tie)
    const int lane_end = n + lo + t0;  // column of this lane's cell 0 in row n
    int best = BAND_INF, best_j = 0x7fffffff;
    if (mode == MODE_GLOBAL) {
#pragma unroll
        for (int k = 0; k < C; ++k)
            if (lane_end + k == m) best = H[k], best_j = m;
    } else {
#pragma unroll
        for (int k = 0; k < C; ++k) {
            const int j = lane_end + k;
            if (j >= 0 && j <= m && H[k] < best) best = H[k], best_j = j;
        }
    }
    const int score = __reduce_min_sync(FULL, best);
    const int end2 = __reduce_min_sync(FULL, best == score ? best_j : 0x7fffffff);
    __syncwarp();  // every lane's moves are visible to every lane
    int count = 0, start2 = 0;
    if (trace) {
        // The whole warp walks the path (the same state in every lane); lane x holds the moves
        // word of row blk - x in the current word column, loaded in one go when the path leaves
        // the 32 rows or the column, and for affine costs the letters a[blk - 1 - x], b[blk + dg
        // - 1 - x] of the current diagonal dg; lane 0 writes the runs.
        unsigned* pr = runs + p.runs;
        unsigned op_now = 4u, len_now = 0;
        auto emit = [&](unsigned op, unsigned len) {
            if (op == op_now) {
                len_now += len;
            } else {
                if (len_now && lane == 0) pr[count] = (len_now << 2) | op_now;
                count += len_now ? 1 : 0;
                op_now = op;
                len_now = len;
            }
        };
        int i = n, j = end2;
        int state = 0;  // 0 H, 1 H', 2 D, 3 I
        int blk = 0, column = -1, lblk = 0, ldiag = -0x7fffffff;  // nothing loaded yet
        unsigned cached = 0, ca = PAD, cb = PAD;
        while (i > 0 && j > 0) {
            const int t = j - i - lo;
            const int l = t / C, k = t % C;
            const int col = (k / PER_WORD) * LANES + l;
            if (blk - i >= LANES || col != column) {
                blk = i;
                column = col;
                cached = i - lane >= 1 ? row_dirs[(long long)(i - lane - 1) * LANES * WPL + col] : 0u;
            }
            const unsigned word = __shfl_sync(FULL, cached, blk - i);
            const unsigned cell = (word >> (BITS * (k % PER_WORD))) & ((1u << BITS) - 1u);
            if (!AFFINE) {
                emit(cell, 1);
                i -= cell != unsigned(OP_I);
                j -= cell != unsigned(OP_D);
                continue;
            }
            const unsigned hs = cell & 3u;
            if (state <= 1) {  // H: from M, D or I; H': from M or D
                if (state == 0 && hs >= 2u) {
                    state = 3;
                } else if (hs & 1u) {
                    state = 2;
                } else {
                    if (lblk - i >= LANES || j - i != ldiag) {
                        lblk = i;
                        ldiag = j - i;
                        ca = letter(a, 0LL + i - 1 - lane, n);
                        cb = letter(b, 0LL + j - 1 - lane, m);
                    }
                    const bool same = __shfl_sync(FULL, unsigned(ca), lblk - i) == __shfl_sync(FULL, unsigned(cb), lblk - i);
                    emit(same ? OP_M : OP_X, 1);
                    --i;
                    --j;
                    state = 0;
                }
            } else if (state == 2) {
                emit(OP_D, 1);
                --i;
                state = (cell & 4u) ? 0 : 2;
            } else {
                emit(OP_I, 1);
                --j;
                state = (cell & 8u) ? 1 : 3;
            }
        }
        if (i > 0) emit(OP_D, i);
        if (j > 0 && mode != MODE_INFIX) emit(OP_I, j);
        if (j > 0 && mode == MODE_INFIX) start2 = j;
        emit(4u, 0);  // flush
    }
    if (lane != 0) return;
    int* o = out + 4LL * w;
    o[0] = score;
    o[1] = end2;
    o[2] = start2;
    o[3] = count;
}

// One warp per pair: the pair's runs (written backwards) as CIGAR text, 32 runs a step (one
// coalesced load; lane x takes the x-th run of the step in text order), each lane's place from
// a prefix sum of the runs' lengths in characters over the warp (one thread per pair walked
// its ~1,000 runs of a 10 kb pair one dependent load after another: ~1 ms a text kernel).
// text == nullptr: count the characters into at[w]; else write them from at[w] on.
__global__ void nw_band_text(const long long* __restrict__ desc, const unsigned* __restrict__ runs,
                             const int* __restrict__ out, int pairs, long long* __restrict__ at,
                             char* __restrict__ text) {
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / LANES;  // the same in the whole warp
    const int lane = threadIdx.x % LANES;
    if (w >= pairs) return;
    const unsigned* pr = runs + load_desc(desc, w).runs;
    const int count = out[4LL * w + 3];
    long long pos = text ? at[w] : 0;
    for (int step = 0; step < count; step += LANES) {
        const int r = count - 1 - step - lane;  // the runs were written from the end backwards
        const unsigned run = r >= 0 ? pr[r] : 0u;
        int chars = 0;
        if (r >= 0) {
            chars = 2;  // one digit and the operation at least
            for (unsigned v = run >> 2; v >= 10; v /= 10) ++chars;
        }
        int upto = chars;  // inclusive prefix sum over the lanes
#pragma unroll
        for (int d = 1; d < LANES; d *= 2) {
            const int v = __shfl_up_sync(FULL, upto, d);
            if (lane >= d) upto += v;
        }
        if (text && r >= 0) {
            char* p = text + pos + upto - chars;
            unsigned v = run >> 2;
            for (int x = chars - 2; x >= 0; --x, v /= 10) p[x] = char('0' + v % 10);
            p[chars - 1] = "=XDI"[run & 3u];
        }
        pos += __shfl_sync(FULL, upto, LANES - 1);
    }
    if (!text && lane == 0) at[w] = pos;
}

#ifndef __CUDACC_RTC__
// nvcc builds instantiate the shipped classes (batch.NAMES); NVRTC only the one a launch asks for.
#define NW_BAND(C, AFFINE)                                                                          \
    template __global__ void nw_band<C, AFFINE>(const unsigned char*, const long long*, int, int, int, \
                                                int, int, int, unsigned*, unsigned*, int*);
#define NW_BAND_BOTH(C) NW_BAND(C, false) NW_BAND(C, true)
NW_BAND_BOTH(4)
NW_BAND_BOTH(8)
NW_BAND_BOTH(16)
NW_BAND_BOTH(24)
NW_BAND_BOTH(32)
NW_BAND_BOTH(40)
NW_BAND_BOTH(48)
NW_BAND(64, false)
NW_BAND(80, false)
#endif
