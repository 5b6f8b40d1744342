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

// Lane 0 waits until the strip above has published at least `need` groups (its flag), or
// WAIT_LIMIT_CYCLES (then the error word is set and `groups` returned); every lane gets the count.
__device__ __forceinline__ int wait_published(const int* flag, int need, int groups, int lane, int* error) {
    int avail = 0;
    if (lane == 0) {
        const long long start = clock64();
        while ((avail = load_acquire(flag)) < need) {
            if (clock64() - start > WAIT_LIMIT_CYCLES) {
                atomicExch(error, 1);
                avail = groups;
                break;
            }
        }
    }
    return __shfl_sync(0xffffffffu, avail, 0);
}

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

// A walk's end, for the host: {moves written, i, j}.
__device__ __forceinline__ void walk_state(int* state, int lane, int count, int i, int j) {
    if (lane == 0) {
        state[0] = count;
        state[1] = i;
        state[2] = j;
    }
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
                        const int avail =
                            wait_published(flags + s - 1, min(groups, t + WINDOW_MIN), groups, lane, error);
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
    walk_state(state, lane, count, i, j);
}

// ---- nw_band: the table inside a band of diagonals, gap-affine costs, every mode ----
// The same strips as nw_strips (warps from one ticket, BAND_R rows per lane, a 4-column group a
// step, lane l one group behind lane l-1, strips chained through two boundary-row slots with
// release/acquire flags), with three differences:
// - Band: strip s computes only the groups holding its rows' diagonals lo..hi (band.py's
//   model: every cell (i, j), boundaries included, with j - i outside lo..hi is BAND_INF), its
//   window [band_first_group(s), band_last_group(s)]; slots hold BAND_GROUPS groups, a strip's
//   groups at their offset from its first one. Strip s's first group starts right of a column
//   that is outside the band for all its rows and the row above, so a window's left edge is
//   BAND_INF (or column 0).
// - Gotoh (AFFINE): E (a gap in a, along the row) per row in registers, F (a gap in b, down the
//   column) in the boundary rows beside H; linear costs use H alone (ext = gap extend).
// - Mode: row 0 is 0 (infix) or gap(j); the answer is H[n][m] (global) or the least H[n][j]
//   (prefix, infix; the least j on ties), one 64-bit key (H + 2^30) << 32 | j by atomicMin. The
//   host adds column 0's candidate.
// A group's cells are written in anti-diagonal order (cell (k, c) at k + c): the cells of one
// anti-diagonal are independent. TRACE (band_group in nw_band_codes, off the strips' chain, where
// they cost 3x a group's instructions): each cell's 4-bit code (bit 0-1: where H came from: 0
// diagonal, 1 F, 2 E; bit 2: E extends E of the cell left; bit 3: F extends F of the cell above),
// BAND_R / 2 words per lane and group, for nw_band_walk.

constexpr int BAND_INF = 1 << 30;  // |every finite score| < 2^30 (common.INT32_SAFE)

__host__ __device__ __forceinline__ int floor_div4(int x) { return x >= 0 ? x / 4 : -((3 - x) / 4); }

__device__ __forceinline__ int band_first_group(int s, int lo) {
    return max(0, floor_div4(s * 32 * BAND_R + lo - 1));
}

__device__ __forceinline__ int band_last_group(int s, int n, int hi, int groups) {
    return min(groups - 1, floor_div4(min((s + 1) * 32 * BAND_R, n) + hi - 1));
}

namespace {

__device__ __forceinline__ void put(int4& v, int c, int x) {
    if (c == 0) v.x = x; else if (c == 1) v.y = x; else if (c == 2) v.z = x; else v.w = x;
}

// One group of one lane: rows k = 0..R-1 (hcol/ecol: H and E of the column left of the group),
// columns c = 0..3. htop/ftop: H and F of the row above, replaced by the group's bottom row;
// diag = H above-left of the group. x = (first column of the group) - (lane's first row): cell
// (k, c) lies on diagonal x + c - k. MASK: cells off lo..hi become BAND_INF (the caller leaves
// it out when every lane's group lies inside the band). LAST: last[c] = H of row rn (the
// lane's row n, or none).
template <int R, bool AFFINE, bool TRACE, bool MASK, bool LAST>
__device__ __forceinline__ void band_group(int (&hcol)[R], int (&ecol)[R], const unsigned char (&ak)[R],
                                           int4& htop, int4& ftop, int diag, uchar4 bg, int match, int mismatch,
                                           int oe, int ext, int x, int lo, int hi, int rn, int (&last)[GROUP],
                                           unsigned (&dirs)[R / 2]) {
    const unsigned char bc[GROUP] = {bg.x, bg.y, bg.z, bg.w};
    int hv[R][GROUP];
    int fup[GROUP] = {ftop.x, ftop.y, ftop.z, ftop.w};
#pragma unroll
    for (int t = 0; t < R + GROUP - 1; ++t) {
#pragma unroll
        for (int k = 0; k < R; ++k) {
            const int c = t - k;
            if (c < 0 || c >= GROUP) continue;
            const int hup = k == 0 ? get(htop, c) : hv[k - 1][c];
            const int hleft = c == 0 ? hcol[k] : hv[k][c - 1];
            const int hdiag = k == 0 ? (c == 0 ? diag : get(htop, c - 1)) : (c == 0 ? hcol[k - 1] : hv[k - 1][c - 1]);
            const bool same = ak[k] == bc[c];
            const int diagonal = hdiag + (same ? match : mismatch);
            int h, e = 0, f = 0;
            if (AFFINE) {
                e = min(ecol[k] + ext, hleft + oe);
                f = min(fup[c] + ext, hup + oe);
                h = min(diagonal, min(e, f));
            } else {
                h = addmin(min(hup, hleft), ext, diagonal);
            }
            if (MASK && (x + c - k < lo || x + c - k > hi)) h = e = f = BAND_INF;
            if (TRACE) {
                unsigned code;
                if (AFFINE)
                    code = (h == diagonal ? 0u : h == f ? 1u : 2u) | (e == ecol[k] + ext ? 4u : 0u) |
                           (f == fup[c] + ext ? 8u : 0u);
                else
                    code = h == diagonal ? 0u : h == hup + ext ? 1u : 2u;
                dirs[k / 2] |= code << (((k % 2) * GROUP + c) * 4);
            }
            if (AFFINE) {
                ecol[k] = e;
                fup[c] = f;
            }
            hv[k][c] = h;
            if (LAST && k == rn) last[c] = h;
        }
    }
#pragma unroll
    for (int k = 0; k < R; ++k) hcol[k] = hv[k][GROUP - 1];
#pragma unroll
    for (int c = 0; c < GROUP; ++c) {
        put(htop, c, hv[R - 1][c]);
        put(ftop, c, fup[c]);
    }
}

}  // namespace

namespace {

// Row 0 of the table at group g (H; F is infinite there): gap(j), or 0 in infix mode (2).
__device__ __forceinline__ int4 band_row0(int g, int hi, int mode, int open, int ext) {
    const int j = GROUP * g + 1;
    return make_int4(j <= hi ? (mode == 2 ? 0 : open + ext * j) : BAND_INF,
                     j + 1 <= hi ? (mode == 2 ? 0 : open + ext * (j + 1)) : BAND_INF,
                     j + 2 <= hi ? (mode == 2 ? 0 : open + ext * (j + 2)) : BAND_INF,
                     j + 3 <= hi ? (mode == 2 ? 0 : open + ext * (j + 3)) : BAND_INF);
}

// A strip window's left edge (its first group g0): column 0 (H = gap(row), E infinite) where g0 = 0 and the
// row's diagonal -row is in the band, else infinite; returns H of the lane's row first - 1 at that column.
template <int R>
__device__ __forceinline__ int band_left_edge(int first, int g0, int lo, int open, int ext, int (&hcol)[R],
                                              int (&ecol)[R]) {
#pragma unroll
    for (int k = 0; k < R; ++k) {
        hcol[k] = g0 == 0 && -(first + k) >= lo ? open + ext * (first + k) : BAND_INF;
        ecol[k] = BAND_INF;
    }
    return g0 == 0 && -(first - 1) >= lo ? (first == 1 ? 0 : open + ext * (first - 1)) : BAND_INF;
}

// Checkpoint column q (column q * CKPT_GROUPS * GROUP, inside strip s's window from g0) of strip s: H of its S
// rows, then E, at cols + (s * cmax + q - q0) * 2 S, q0 = g0 / CKPT_GROUPS + 1 (the window's first).
__device__ __forceinline__ long long band_column(int s, int q, int g0, int cmax) {
    return (static_cast<long long>(s) * cmax + q - (g0 / CKPT_GROUPS + 1)) * 2 * (32 * BAND_R);
}

}  // namespace

// a: codes of seq1 padded with PAD_A to strips * S; b4: seq2 in groups of 4 padded with PAD_B;
// (hrows, frows): `slots` slots x BAND_GROUPS (= gmax) int4 of H and F (F unused when linear): 2 (the strip
// above's bottom row, linear memory) or strips (every strip's bottom row kept, with CKPT); flags (strips ints)
// and ticket zeroed; oe = gap open + extend, ext = gap extend (linear: oe = ext = indel); mode 0 global, 1
// prefix, 2 infix; CKPT: also the checkpoint columns every CKPT_GROUPS groups of each strip's window (H and E
// of its rows, band_column; cmax columns a strip), from which nw_band_codes recomputes the alignment's codes;
// best: ~0 (the least key, see above); error: 0.
template <bool AFFINE, bool CKPT>
__global__ void __launch_bounds__(128) nw_band(const unsigned char* __restrict__ a, const uchar4* __restrict__ b4,
                                               int n, int m, int groups, int strips, int match, int mismatch,
                                               int oe, int ext, int lo, int hi, int mode, int4* hrows, int4* frows,
                                               int gmax, int slots, int* flags, int* ticket, int* __restrict__ cols,
                                               int cmax, unsigned long long* best, int* error) {
    constexpr int R = BAND_R;
    constexpr int S = 32 * R;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int open = oe - ext;
    for (;;) {
        int s = 0;
        if (lane == 0) s = atomicAdd(ticket, 1);
        s = __shfl_sync(0xffffffffu, s, 0);
        if (s >= strips) return;
        const int first = s * S + lane * R + 1;  // this lane's first table row
        const int g0 = band_first_group(s, lo), g1 = band_last_group(s, n, hi, groups);
        const int pg0 = s > 0 ? band_first_group(s - 1, lo) : 0;
        const int pg1 = s > 0 ? band_last_group(s - 1, n, hi, groups) : -1;
        const int ng = g1 - g0 + 1;
        int hcol[R], ecol[R];
        unsigned char ak[R];
#pragma unroll
        for (int k = 0; k < R; ++k) ak[k] = a[first - 1 + k];
        int diag = band_left_edge<R>(first, g0, lo, open, ext, hcol, ecol);
        const bool last_strip = s == strips - 1;
        const int rn = n - first < R && n >= first ? n - first : -1;
        unsigned long long mine = ~0ull;
        int4 hbot = make_int4(0, 0, 0, 0), fbot = hbot, win_h = hbot, win_f = hbot;
        int win_base = 0, win_end = 0;
        const long long prev = static_cast<long long>((s + slots - 1) % slots) * gmax - pg0;  // + absolute group
        const long long here = static_cast<long long>(s % slots) * gmax - g0;
        const bool publish = s + 1 < strips;
        // b's group for the next step, loaded a step ahead (off the step's critical path)
        uchar4 bg_next = __ldg(b4 + min(max(g0 - lane, 0), groups - 1));
        for (int t = 0; t < ng + 31; ++t) {
            const int u = g0 + t - lane;  // absolute group of this lane at step t
            const uchar4 bg = bg_next;
            bg_next = __ldg(b4 + min(max(u + 1, 0), groups - 1));
            const int x = GROUP * u + 1 - first;  // the group's cell (k, c) is on diagonal x + c - k
            // every lane's group (if any) inside the band: no cell to mask this step
            const bool inside = __all_sync(0xffffffffu, u < g0 || u > g1 || (x - (R - 1) >= lo && x + GROUP - 1 <= hi));
            int4 htop = shfl_up4(hbot);
            int4 ftop = AFFINE ? shfl_up4(fbot) : hbot;
            if (t < ng) {  // lane 0 enters group g0 + t
                const int g = g0 + t;
                int4 eh, ef = make_int4(BAND_INF, BAND_INF, BAND_INF, BAND_INF);
                if (s == 0) {
                    eh = band_row0(g, hi, mode, open, ext);
                } else if (g > pg1) {
                    eh = ef;
                } else {
                    if (t >= win_end) {
                        const int avail =
                            wait_published(flags + s - 1, min(pg1 + 1, g + WINDOW_MIN), groups, lane, error);
                        win_base = t;
                        win_end = min(min(avail, pg1 + 1) - g0, t + 32);
                        if (t + lane < win_end) {
                            win_h = __ldcg(hrows + prev + g0 + t + lane);
                            if (AFFINE) win_f = __ldcg(frows + prev + g0 + t + lane);
                        }
                    }
                    eh = shfl4(win_h, t - win_base);
                    if (AFFINE) ef = shfl4(win_f, t - win_base);
                }
                if (lane == 0) {
                    htop = eh;
                    ftop = ef;
                }
            }
            if (u >= g0 && u <= g1) {
                const int next_diag = htop.w;
                unsigned dirs[R / 2] = {};
                int last[GROUP] = {BAND_INF, BAND_INF, BAND_INF, BAND_INF};
                if (last_strip)
                    band_group<R, AFFINE, false, true, true>(hcol, ecol, ak, htop, ftop, diag, bg, match, mismatch, oe,
                                                             ext, x, lo, hi, rn, last, dirs);
                else if (inside)
                    band_group<R, AFFINE, false, false, false>(hcol, ecol, ak, htop, ftop, diag, bg, match, mismatch,
                                                               oe, ext, x, lo, hi, rn, last, dirs);
                else
                    band_group<R, AFFINE, false, true, false>(hcol, ecol, ak, htop, ftop, diag, bg, match, mismatch,
                                                              oe, ext, x, lo, hi, rn, last, dirs);
                diag = next_diag;
                hbot = htop;
                fbot = ftop;
                if (CKPT && (u + 1) % CKPT_GROUPS == 0) {  // H and E of column 4 (u + 1): two int4 stores a row quad
                    int* out = cols + band_column(s, (u + 1) / CKPT_GROUPS, g0, cmax) + lane * R;
#pragma unroll
                    for (int k = 0; k < R; k += 4) {
                        *reinterpret_cast<int4*>(out + k) = make_int4(hcol[k], hcol[k + 1], hcol[k + 2], hcol[k + 3]);
                        if (AFFINE)
                            *reinterpret_cast<int4*>(out + S + k) =
                                make_int4(ecol[k], ecol[k + 1], ecol[k + 2], ecol[k + 3]);
                    }
                }
                if (rn >= 0) {
#pragma unroll
                    for (int c = 0; c < GROUP; ++c) {
                        const int j = GROUP * u + 1 + c;
                        if (j <= m && (mode != 0 || j == m) && last[c] < BAND_INF) {
                            const unsigned long long key =
                                (static_cast<unsigned long long>(static_cast<unsigned>(last[c] + BAND_INF)) << 32) |
                                static_cast<unsigned>(j);
                            mine = min(mine, key);
                        }
                    }
                }
                if (lane == 31 && publish) {
                    hrows[here + u] = hbot;
                    if (AFFINE) frows[here + u] = fbot;
                    if (u == g1)
                        store_release(flags + s, groups);
                    else if ((u + 1) % PUBLISH == 0)
                        store_release(flags + s, u + 1);
                }
            }
        }
        if (rn >= 0 && mine != ~0ull) atomicMin(best, mine);
    }
}

// The alignment's 4-bit codes (band_group's, as a traced pass would write them) over the walk's band wlo..whi,
// recomputed from what an nw_band<AFFINE, true> pass over lo..hi kept (every strip's bottom row, slots =
// strips; the checkpoint columns): off the strips' chain, every block at once. One warp per block of a strip's
// rows and <= CKPT_GROUPS groups (per_strip blocks a strip from the one holding the walk window's first group
// wg0; a block starts at a checkpoint column or at the pass window's left edge), swept as nw_band sweeps a
// strip (lane l one group behind lane l-1) from the pass's own values, so each cell's code is the pass's; the
// codes of groups wg0..wg1 go to bits (strips x wmax x 32 lanes x R / 2 words, from wg0: nw_band_walk's
// layout with lo = wlo). Every optimal path of the pass's table lies in wlo..whi (the host's certificate), so
// the walk reads no other code.
template <bool AFFINE>
__global__ void __launch_bounds__(128) nw_band_codes(const unsigned char* __restrict__ a,
                                                     const uchar4* __restrict__ b4, int n, int groups, int strips,
                                                     int match, int mismatch, int oe, int ext, int lo, int hi,
                                                     int mode, const int4* __restrict__ hrows,
                                                     const int4* __restrict__ frows, int gmax,
                                                     const int* __restrict__ cols, int cmax, int wlo, int whi,
                                                     int wmax, int per_strip, unsigned* __restrict__ bits) {
    constexpr int R = BAND_R;
    constexpr int S = 32 * R;
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int s = warp / per_strip;
    if (s >= strips) return;
    const int g0 = band_first_group(s, lo), g1 = band_last_group(s, n, hi, groups);
    const int wg0 = band_first_group(s, wlo), wg1 = band_last_group(s, n, whi, groups);
    const int b0 = max(g0, (wg0 / CKPT_GROUPS + warp % per_strip) * CKPT_GROUPS);  // the block's first group
    const int b1 = min(min(wg1, g1), (b0 / CKPT_GROUPS + 1) * CKPT_GROUPS - 1);
    if (b0 > b1) return;
    const int open = oe - ext;
    const int first = s * S + lane * R + 1;
    const int pg1 = s > 0 ? band_last_group(s - 1, n, hi, groups) : -1;
    const long long prev = (static_cast<long long>(s) - 1) * gmax - (s > 0 ? band_first_group(s - 1, lo) : 0);
    // the row above at group g (lane 0's entry): row 0, the strip above's kept bottom row, or infinite past it
    auto entry = [&](int g, int4& eh, int4& ef) {
        ef = make_int4(BAND_INF, BAND_INF, BAND_INF, BAND_INF);
        if (s == 0) {
            eh = band_row0(g, hi, mode, open, ext);
        } else if (g > pg1) {
            eh = ef;
        } else {
            eh = __ldg(hrows + prev + g);
            if (AFFINE) ef = __ldg(frows + prev + g);
        }
    };
    int hcol[R], ecol[R];
    unsigned char ak[R];
#pragma unroll
    for (int k = 0; k < R; ++k) ak[k] = a[first - 1 + k];
    int diag;
    if (b0 == g0) {
        diag = band_left_edge<R>(first, g0, lo, open, ext, hcol, ecol);
    } else {  // checkpoint column b0 / CKPT_GROUPS; H above-left of lane 0: the row above at column 4 b0
        const int* col = cols + band_column(s, b0 / CKPT_GROUPS, g0, cmax);
#pragma unroll
        for (int k = 0; k < R; ++k) {
            hcol[k] = __ldg(col + lane * R + k);
            ecol[k] = AFFINE ? __ldg(col + S + lane * R + k) : BAND_INF;
        }
        int4 eh, ef;
        entry(b0 - 1, eh, ef);
        diag = lane > 0 ? __ldg(col + lane * R - 1) : eh.w;
    }
    const int nb = b1 - b0 + 1;
    int4 hbot = make_int4(0, 0, 0, 0), fbot = hbot, win_h = hbot, win_f = hbot;
    uchar4 bg_next = __ldg(b4 + min(max(b0 - lane, 0), groups - 1));
    for (int t = 0; t < nb + 31; ++t) {
        const int u = b0 + t - lane;
        const uchar4 bg = bg_next;
        bg_next = __ldg(b4 + min(max(u + 1, 0), groups - 1));
        const int x = GROUP * u + 1 - first;
        const bool inside = __all_sync(0xffffffffu, u < b0 || u > b1 || (x - (R - 1) >= lo && x + GROUP - 1 <= hi));
        int4 htop = shfl_up4(hbot);
        int4 ftop = AFFINE ? shfl_up4(fbot) : hbot;
        if (t < nb) {  // lane 0 enters group b0 + t; the row above read 32 groups at a time
            if (t % 32 == 0 && t + lane < nb) entry(b0 + t + lane, win_h, win_f);
            const int4 eh = shfl4(win_h, t % 32);
            const int4 ef = shfl4(win_f, t % 32);
            if (lane == 0) {
                htop = eh;
                ftop = ef;
            }
        }
        if (u >= b0 && u <= b1) {
            const int next_diag = htop.w;
            unsigned dirs[R / 2] = {};
            int last[GROUP];
            if (inside)
                band_group<R, AFFINE, true, false, false>(hcol, ecol, ak, htop, ftop, diag, bg, match, mismatch, oe,
                                                          ext, x, lo, hi, -1, last, dirs);
            else
                band_group<R, AFFINE, true, true, false>(hcol, ecol, ak, htop, ftop, diag, bg, match, mismatch, oe,
                                                         ext, x, lo, hi, -1, last, dirs);
            diag = next_diag;
            hbot = htop;
            fbot = ftop;
            if (u >= wg0) {  // R / 2 words a lane and group, vector stores (R = 4: uint2, 8: uint4, 16: 2 x uint4)
                unsigned* out = bits + ((static_cast<long long>(s) * wmax + (u - wg0)) * 32 + lane) * (R / 2);
                if (R / 2 == 2) {
                    *reinterpret_cast<uint2*>(out) = make_uint2(dirs[0], dirs[1 % (R / 2)]);
                } else {
#pragma unroll
                    for (int w = 0; w + 3 < R / 2; w += 4)
                        *reinterpret_cast<uint4*>(out + w) = make_uint4(dirs[w], dirs[w + 1], dirs[w + 2], dirs[w + 3]);
                }
            }
        }
    }
}

namespace {

// Copies global -> shared in flight together (cp.async: no registers held while they travel),
// completed by copy_done for the lane's own copies; a __syncwarp after it gives them to the warp.
__device__ __forceinline__ void copy16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))),
                 "l"(src) : "memory");
}

__device__ __forceinline__ void copy4(void* dst, const void* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))),
                 "l"(src) : "memory");
}

__device__ __forceinline__ void copy_done() {
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
}

// The 4-bit code of a walk tile's cell (r, c): r from the strip's first row, c from the tile's
// first column. nw_band_codes writes lane l's R / 2 words of group g at (g * 32 + l) * R / 2, row k
// of the lane in word k / 2 at nibble (k % 2) * 4 + column; with r = l R + k (R even) that is word
// g * 16 R + r / 2, nibble (r % 2) * 4 + c % 4.
__device__ __forceinline__ unsigned tile_code(const unsigned* tile, int r, int c) {
    return (tile[(c >> 2) * (16 * BAND_R) + (r >> 1)] >> (((r & 1) << 4) | ((c & 3) << 2))) & 15u;
}

}  // namespace

// The alignment from nw_band_codes' codes, by one warp: from (i, j) in state H, the warp copies the
// codes of strip (i-1)/S, groups u0..u (u = (j-1)/4, at most TILE_GROUPS of them), and the tile's
// letters into shared memory, all in flight at once (cp.async), then lane 0 follows the codes
// (H: diagonal, or F or E; F: 'D' up, staying in F while its extend bit is set; E: 'I' left,
// likewise) until the path leaves the tile, and so on, to row 0 or column 0. In state H lane 0
// reads the codes of the next WALK_RUN cells of the diagonal together and takes every diagonal
// move before the first cell whose H comes from a gap at once: the path is mostly diagonal, and
// the run's loads are independent, so a diagonal move costs a fraction of a shared-memory round
// trip, not one (the loop-carried chain is the codes' load). A cell whose H comes from F (E)
// takes its 'D' ('I') at once, with the cell's extend bit. ops[] gets the moves (last first);
// state = {moves, i, j} at the end.
__global__ void __launch_bounds__(32) nw_band_walk(const unsigned char* __restrict__ a,
                                                   const unsigned char* __restrict__ b, int lo, int gmax,
                                                   const unsigned* __restrict__ bits, int i, int j,
                                                   signed char* __restrict__ ops, int* state) {
    constexpr int R = BAND_R;
    constexpr int S = 32 * R;
    constexpr int QUADS = 8 * R / 2;  // 16-byte pieces of one group's codes (32 lanes x R / 2 words)
    static_assert(R % 2 == 0 && S % 16 == 0 && WALK_RUN <= 31, "tile_code's layout, the letters' copies, run masks");
    __shared__ __align__(16) unsigned tile[TILE_GROUPS * 4 * QUADS];
    __shared__ __align__(16) unsigned char ta[S];
    __shared__ __align__(16) unsigned char tb[TILE_GROUPS * GROUP];  // the tile's letters of a and b
    const int lane = static_cast<int>(threadIdx.x);
    int st = 0, count = 0;  // 0 H, 1 F, 2 E
    while (i > 0 && j > 0) {
        const int s = (i - 1) / S, g0 = band_first_group(s, lo), u = (j - 1) / GROUP;
        const int u0 = max(g0, u - TILE_GROUPS + 1);
        const uint4* from = reinterpret_cast<const uint4*>(bits) + (static_cast<long long>(s) * gmax + (u0 - g0)) * QUADS;
        for (int k = lane; k < (u - u0 + 1) * QUADS; k += 32) copy16(tile + 4 * k, from + k);
        if (lane < S / 16) copy16(ta + 16 * lane, a + static_cast<long long>(s) * S + 16 * lane);
        for (int k = lane; k <= u - u0; k += 32) copy4(tb + GROUP * k, b + GROUP * (u0 + k));
        copy_done();
        __syncwarp();
        if (lane == 0) {
            int r = i - 1 - s * S, c = j - 1 - GROUP * u0;  // the cell in the tile
            while (r >= 0 && c >= 0) {
                unsigned code;
                if (st == 0) {
                    const int reach = min(min(r, c) + 1, WALK_RUN);  // cells of the diagonal left in the tile
                    unsigned run_codes[WALK_RUN], diagonal = 0;
#pragma unroll
                    for (int k = 0; k < WALK_RUN; ++k) {
                        run_codes[k] = tile_code(tile, max(r - k, 0), max(c - k, 0));
                        if (k < reach && (run_codes[k] & 3u) == 0) diagonal |= 1u << k;
                    }
                    const int run = __ffs(~diagonal) - 1;  // diagonal moves before the first gap cell
                    code = 0;
#pragma unroll
                    for (int k = 0; k < WALK_RUN; ++k) {
                        if (k < run) ops[count + k] = static_cast<signed char>(ta[r - k] == tb[c - k] ? 0 : 1);
                        if (k == run) code = run_codes[k];
                    }
                    count += run;
                    r -= run;
                    c -= run;
                    if (run == reach) continue;
                    st = static_cast<int>(code & 3u);  // H of (r, c) from F or E: its gap move below
                } else {
                    code = tile_code(tile, r, c);
                }
                if (st == 1) {
                    ops[count++] = 2;
                    st = code & 8u ? 1 : 0;
                    --r;
                } else {
                    ops[count++] = 3;
                    st = code & 4u ? 2 : 0;
                    --c;
                }
            }
            i = s * S + r + 1;
            j = GROUP * u0 + c + 1;
        }
        i = __shfl_sync(0xffffffffu, i, 0);
        j = __shfl_sync(0xffffffffu, j, 0);
        st = __shfl_sync(0xffffffffu, st, 0);
        count = __shfl_sync(0xffffffffu, count, 0);
        __syncwarp();
    }
    walk_state(state, lane, count, i, j);
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
#define NW_BAND(AFFINE, CKPT)                                                                            \
    template __global__ void nw_band<AFFINE, CKPT>(const unsigned char*, const uchar4*, int, int, int, int, int, \
                                                   int, int, int, int, int, int, int4*, int4*, int, int, int*,    \
                                                   int*, int*, int, unsigned long long*, int*);
NW_BAND(true, true)
NW_BAND(true, false)
NW_BAND(false, true)
NW_BAND(false, false)
#define NW_BAND_CODES(AFFINE)                                                                                  \
    template __global__ void nw_band_codes<AFFINE>(const unsigned char*, const uchar4*, int, int, int, int, int,   \
                                                   int, int, int, int, int, const int4*, const int4*, int,         \
                                                   const int*, int, int, int, int, int, unsigned*);
NW_BAND_CODES(true)
NW_BAND_CODES(false)
#endif
