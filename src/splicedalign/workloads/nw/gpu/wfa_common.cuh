// Device code nw's two wavefront kernel files share (wfa.cu: nw_wfa, nw_biwfa; wfa_cluster.cu:
// nw_wfa_cluster): the first 8 letters of a run of matches, the warp's extension past them, a
// wavefront's diagonals, the walk's runs and the walks back (nw_wfa's through M, I and D; BiWFA's
// linear one from any cell of a diagonal). Included after the kernel file's defines.
#pragma once

namespace {

typedef unsigned long long u64;
constexpr unsigned FULL_WARP = 0xffffffffu;

// 8 letters from position `pos` of a packed sequence (32-bit words of 8 letters: one funnel shift).
// Each kernel file defines it: wfa.cu with plain loads (its letters are in shared memory where they
// fit), wfa_cluster.cu through the read-only path.
__device__ __forceinline__ unsigned window8(const u64* s, int pos);
// BiWFA's reverse reads: the 8 letters ending at `pos` (pos - 7 .. pos, pos at the top nibble; pos >= -1,
// the letters below 0 the sequence's pad `pad`, 8 pad letters). Each kernel file defines it: wfa.cu's
// shared copies have a pad word before each sequence, wfa_cluster.cu's global ones do not (`pad` then).
__device__ __forceinline__ unsigned window8_back(const u64* s, int pos, unsigned pad);
constexpr unsigned PAD8_A = WFA_PAD_A * 0x11111111u, PAD8_B = WFA_PAD_B * 0x11111111u;

// The letters of a and b `ahead` letters past cell (h, v = h - k) of a direction (REV: the reversed pair's,
// a[n - 1 - v] and b[m - 1 - h] downwards), 8 of each xor'ed, read at their positions clamped to the
// sequences' ends (a pad letter there: a mismatch); run_of: the matches before the first mismatch of x != 0.
template <bool REV>
__device__ __forceinline__ unsigned xor8(const u64* a, const u64* b, int h, int k, int ahead, int n, int m) {
    if (REV) {
        return window8_back(a, max(n - 1 - (h - k) - ahead, -1), PAD8_A) ^
               window8_back(b, max(m - 1 - h - ahead, -1), PAD8_B);
    }
    return window8(a, min(h - k + ahead, n)) ^ window8(b, min(h + ahead, m));
}
template <bool REV>
__device__ __forceinline__ int run_of(unsigned x) {
    return REV ? __clz(int(x)) >> 2 : (__ffs(int(x)) - 1) >> 2;
}

// The first 8 letters of the run of matches from (h, v = h - k) of a direction, without a branch (most
// diagonals of a step stop within a few letters: ~12 instructions): the offset after the run, or h + 8 with
// `more` when all 8 matched (extend_warp goes on from there). (The cell lies inside both sequences: no clamp.)
template <bool REV = false>
__device__ __forceinline__ int probe8(const u64* a, const u64* b, int h, int k, int n, int m, bool& more) {
    const unsigned x = REV ? window8_back(a, n - 1 - (h - k), PAD8_A) ^ window8_back(b, m - 1 - h, PAD8_B)
                           : window8(a, h - k) ^ window8(b, h);
    more = x == 0;
    return h + (x ? run_of<REV>(x) : 8);
}

// The offset after the run of matching letters from (h, v = h - k) of a direction, by the whole warp (called
// by all its lanes with the same h and k): lane l compares the 8 letters 8 l past h, 256 a round. A lane's
// window is read at its position clamped to the sequences' ends: a lane past an end comes after the lane
// whose window holds that end, whose pad letter is a mismatch.
template <bool REV = false>
__device__ __forceinline__ int extend_warp(const u64* a, const u64* b, int h, int k, int lane, int n, int m) {
    while (true) {
        const unsigned x = xor8<REV>(a, b, h, k, 8 * lane, n, m);
        const unsigned differ = __ballot_sync(FULL_WARP, x != 0);
        if (differ) {
            const int first = __ffs(int(differ)) - 1;
            return h + 8 * first + run_of<REV>(__shfl_sync(FULL_WARP, x, first));
        }
        h += 256;
    }
}

struct Range {
    int lo, hi;  // empty when lo > hi
    __device__ __forceinline__ bool has(int k) const { return k >= lo && k <= hi; }
    __device__ __forceinline__ int width() const { return max(hi - lo + 1, 0); }
};

// reach[s] (-1: no wavefront at s, or s outside 0..last)
__device__ __forceinline__ int reach_at(const int* __restrict__ reach, int s, int last) {
    return s < 0 || s > last ? -1 : __ldg(reach + s);
}

// The diagonals of a wavefront reaching |k| <= r of an n x m pair (wfa.py span).
__device__ __forceinline__ Range span_of(int r, int n, int m, bool infix) {
    if (r < 0) return Range{1, 0};
    return Range{max(-r, -n), infix ? m : min(r, m)};
}

// A ring slot `back` scores before `slot` (back < size).
__device__ __forceinline__ int slot_back(int slot, int back, int size) {
    const int t = slot - back;
    return t < 0 ? t + size : t;
}

// The value of (arr, s, k) as kept (for the walk back), NULL outside its wavefront.
__device__ __forceinline__ int kept_get(const int* kept, const long long* bases, const int* reach, int last, int arr,
                                        int s, int k, int n, int m, bool infix) {
    const Range r = span_of(reach_at(reach, s, last), n, m, infix);
    if (!r.has(k)) return WFA_NULL;
    return kept[bases[s] + (long long)arr * (r.hi - r.lo + 1) + (k - r.lo)];
}

// The walk's runs (length << 2 | op), from the end backwards; the open run stays in registers.
struct Runs {
    unsigned* out;
    int count;
    unsigned op;
    unsigned len;
    __device__ void emit(unsigned what, int many) {
        if (many <= 0) return;
        if (len && what != op) out[count++] = (len << 2) | op;
        if (what != op) len = 0;
        op = what;
        len += unsigned(many);
    }
    __device__ int close() {
        if (len) out[count++] = (len << 2) | op;
        return count;
    }
};

// BiWFA's runs joined at `joined` by the block: the reverse walk's `cr` runs (from the breakpoint on) last first,
// then the forward's `cf` (from the breakpoint back); two runs of one operation at the breakpoint become one.
// The count.
__device__ __forceinline__ int join_runs(unsigned* joined, const unsigned* fruns, int cf, const unsigned* rruns,
                                         int cr) {
    const int join = cr > 0 && cf > 0 && (rruns[0] & 3u) == (fruns[0] & 3u);
    const int total = cr + cf - join;
    for (int i = threadIdx.x; i < total; i += blockDim.x) {
        unsigned u;
        if (i < cr) {
            u = rruns[cr - 1 - i];
            if (join && i == cr - 1) u += fruns[0] & ~3u;
        } else {
            u = fruns[i - cr + join];
        }
        joined[i] = u;
    }
    return total;
}

__device__ __forceinline__ int valid_h(int h, int m) { return h <= m ? h : WFA_NULL; }
__device__ __forceinline__ int valid_v(int h, int lim) { return h <= lim ? h : WFA_NULL; }
__device__ __forceinline__ int non_negative(int h) { return h >= 0 ? h : WFA_NULL; }

// The walk back through M (state 0), I (1) and D (2) from a wavefront's offset h on diagonal k at
// score s (WFA2's backtrace: a value's source is equal to it; linear costs (!AFFINE): M alone, from
// M[s - x][k] + 1, M[s - e][k - 1] + 1 or M[s - e][k + 1]; gap-affine: M from M[s - x][k] + 1, I[s][k] or
// D[s][k], I from M[s - o - e][k - 1] + 1 (opened) or I[s - e][k - 1] + 1, D from M[s - o - e][k + 1] or
// D[s - e][k + 1]), then the run of matches: runs from there backwards. kept(arr, s, k, miss) reads step
// s's array arr (0 M, 1 I, 2 D) at diagonal k, NULL outside its wavefront. Resumable: it stops before an
// operation whose reads `kept` misses (false; state, s, k, h where it stands) and says true once it has
// written the run from the start (at s = 0 the start offset is k itself: the start column where the
// mode leaves it free). A D gap extended back to s = 0 is infix mode's gap start (D[0] = M[0], none
// without it): the path starts there, inside the gap, with no run of matches before it.
template <bool AFFINE, class Kept>
__device__ bool walk_wfa(Runs& w, const Kept& kept, int x, int e, int oe, int n, int m, int& state, int& s, int& k,
                         int& h) {
    while (true) {
        bool miss = false;
        if (s == 0) {  // the run from the start (none from the gap start's D[0]: h = k there)
            w.emit(WFA_OP_M, h - k);
            return true;
        }
        if (state == 0) {
            const int lim = n + k;
            int g = kept(0, s - x, k, miss) + 1;
            g = g <= m && g <= lim ? g : WFA_NULL;
            int ins, del;
            if (AFFINE) {
                ins = kept(1, s, k, miss);
                del = kept(2, s, k, miss);
            } else {
                ins = valid_h(kept(0, s - e, k - 1, miss) + 1, m);
                del = valid_v(kept(0, s - e, k + 1, miss), lim);
            }
            if (miss) return false;
            const int before = max(g, max(ins, del));  // the offset before the run of matches
            w.emit(WFA_OP_M, h - before);
            h = before;
            if (before == g) {
                w.emit(WFA_OP_X, 1);
                s -= x;
                h -= 1;
            } else if (before == ins) {
                if (AFFINE) {
                    state = 1;
                } else {
                    w.emit(WFA_OP_I, 1);
                    s -= e;
                    k -= 1;
                    h -= 1;
                }
            } else if (AFFINE) {
                state = 2;
            } else {
                w.emit(WFA_OP_D, 1);
                s -= e;
                k += 1;
            }
        } else {  // I[s][k] = h (state 1): opened from M[s-o-e][k-1] + 1, or I[s-e][k-1] + 1; D[s][k] = h (state 2):
            // opened from M[s-o-e][k+1], or D[s-e][k+1]
            const bool ins = state == 1;
            const int to = ins ? -1 : 1;  // the source's diagonal, k + to
            const int from = kept(0, s - oe, k + to, miss) + int(ins);
            const int opened = ins ? valid_h(from, m) : valid_v(from, n + k);
            if (miss) return false;
            w.emit(ins ? WFA_OP_I : WFA_OP_D, 1);
            if (opened == h) {
                s -= oe;
                state = 0;
            } else {
                s -= e;
            }
            k += to;
            h -= int(ins);
        }
    }
}

// The kept values in the pool as the walks read them: step s's arrays (0 M, 1 I, 2 D) from bases[s], its
// diagonals span(s) (NULL outside).
struct KeptPool {
    const int* kept;
    const long long* bases;
    const int* reach;
    int last, n, m;
    bool infix;
    __device__ Range span(int s) const { return span_of(reach_at(reach, s, last), n, m, infix); }
    __device__ int operator()(int arr, int s, int k) const {
        return kept_get(kept, bases, reach, last, arr, s, k, n, m, infix);
    }
};

// A walk back (`step`) of a single pair from (s, k) by thread 0, the block's threads copying windows of the
// kept values (every thread of the block calls it; `walk_at`: 3 ints of shared memory apart from the room).
// Read straight from the pool, an operation is three dependent round trips (the reach of its step, the step's
// base, the kept value: ~880 cycles at 10^5 1%, 31% of nw_wfa's CIGAR kernel's samples; the cluster's 10^6 1%
// walk ~4 ms), so with `walk_steps` the block first copies a window of the kept wavefronts' arrays arr0 ..
// arr0 + ARRAYS - 1 into `room` ints of shared memory (steps S0 - W + 1 .. S0, diagonals K0 +- WFA_WALK_DIAGS,
// anchored where the walk stands), thread 0 walks in it until it needs a value outside, and the block copies
// the window there. step(at, s, k): thread 0's walk from (s, k) through at(arr, step, diagonal, miss) (arr from
// arr0; a value outside the window: `miss`), resumable as walk_wfa; true once it is done. `back`: the most
// steps an operation reads back (no window shorter serves it).
template <int ARRAYS, class Step>
__device__ void walk_windows(const KeptPool& kept, int arr0, int* walk_at, int* room, int room_ints, int walk_steps,
                             int back, int s, int k, Step step) {
    constexpr int D = WFA_WALK_DIAGS, SPAN = 2 * D + 1;
    const int tid = threadIdx.x, threads = blockDim.x;
    int W = walk_steps > 0 ? min(walk_steps, room_ints / (4 + ARRAYS * SPAN)) : 0;
    if (W < back) W = 0;
    int* const win_lo = room;  // per window step t (step S0 - t): its diagonals, its base in the pool
    int* const win_hi = room + W;
    long long* const win_base = reinterpret_cast<long long*>(room + 2 * W);
    int* const win = room + 4 * W;  // ARRAYS x W x SPAN values
    if (tid == 0) {  // walk_at (3 ints of shared memory): the window's anchor S0, K0; whether the walk is done
        walk_at[0] = s;
        walk_at[1] = k;
        walk_at[2] = 0;
    }
    while (true) {
        __syncthreads();
        const int S0 = walk_at[0], K0 = walk_at[1], walked = walk_at[2];
        __syncthreads();  // (read by all before thread 0 writes the next anchor)
        if (walked) break;
        if (W) {  // the window at (S0, K0), by the whole block
            for (int t = tid; t < W; t += threads) {
                const Range r = kept.span(S0 - t);
                win_lo[t] = r.lo;
                win_hi[t] = r.hi;
                win_base[t] = r.lo <= r.hi ? kept.bases[S0 - t] : 0;
            }
            __syncthreads();
            const int total = ARRAYS * W * SPAN;
            for (int i0 = tid; i0 < total; i0 += 4 * threads) {  // 4 loads in flight a thread
                int got[4];
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    const int i = i0 + q * threads;
                    const int arr = i / (W * SPAN), rest = i - arr * W * SPAN, t = rest / SPAN;
                    const int j = K0 - D + rest - t * SPAN, lo = win_lo[min(t, W - 1)], hi = win_hi[min(t, W - 1)];
                    got[q] = i < total && j >= lo && j <= hi
                                 ? kept.kept[win_base[t] + (long long)(arr0 + arr) * (hi - lo + 1) + (j - lo)]
                                 : WFA_NULL;
                }
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    if (i0 + q * threads < total) win[i0 + q * threads] = got[q];
                }
            }
            __syncthreads();
        }
        if (tid != 0) continue;
        auto at = [&](int arr, int st, int diag, bool& miss) {  // (a value outside the window: a miss)
            if (!W) return kept(arr0 + arr, st, diag);
            const int t = S0 - st, jj = diag - K0 + D;
            if (unsigned(t) < unsigned(W) && unsigned(jj) < unsigned(SPAN)) return win[(arr * W + t) * SPAN + jj];
            miss = true;
            return int(WFA_NULL);
        };
        const bool done = step(at, s, k);
        walk_at[0] = s;  // (the next window's anchor, where the walk stands)
        walk_at[1] = k;
        walk_at[2] = done;
    }
}

// The walk back of a single pair (nw_wfa's, the gap-affine cluster's) from a wavefront's offset h on diagonal k
// at score s, in state M, through walk_wfa (M, and I and D) in windows (walk_windows); k is thread 0's start
// column after it.
template <bool AFFINE>
__device__ void walk_back(Runs& w, const KeptPool& kept, int* walk_at, int* room, int room_ints, int walk_steps,
                          int ring_size, int x, int e, int oe, int s, int& k, int h) {
    int state = 0;
    // (an operation reads up to ring_size - 1 steps back)
    walk_windows<AFFINE ? 3 : 1>(kept, 0, walk_at, room, room_ints, walk_steps, ring_size, s, k,
                                 [&](auto& at, int& ws, int& wk) {
                                     const bool done = walk_wfa<AFFINE>(w, at, x, e, oe, kept.n, kept.m, state, ws,
                                                                        wk, h);
                                     k = wk;
                                     return done;
                                 });
}

// The walk back of one direction (linear costs, global mode) from a cell (k, h) whose least cost
// is s (not only a wavefront's furthest offset; kept(s, k, miss): M of step s at diagonal k, NULL outside
// its wavefront): runs from there backwards.
// Its last operation is a mismatch from (k, h - 1) when M[s - x][k] >= h - 1, an insertion from
// (k - 1, h - 1) when M[s - e][k - 1] >= h - 1, a deletion from (k + 1, h) when M[s - e][k + 1] >= h
// (the cost is monotone along a diagonal: a cell at or before a wavefront's offset costs at most its
// score; each such cell costs s less the operation exactly), else a match from (k, h - 1) of cost s:
// matches down to the first offset where a source reaches. From a wavefront's offset this is WFA2's
// backtrace.
// Resumable: it stops before an operation whose reads `kept` misses (false; s, k, h where it stands)
// and says true once it has written the run from the start.
template <class Kept>
__device__ bool walk_linear(Runs& w, const Kept& kept, int x, int e, int& s, int& k, int& h) {
    while (s > 0) {
        bool miss = false;
        const int cx = kept(s - x, k, miss), ci = kept(s - e, k - 1, miss), cd = kept(s - e, k + 1, miss);
        if (miss) return false;
        bool mis = cx >= h - 1 && h >= 1 && h - k >= 1, ins = ci >= h - 1 && h >= 1, del = cd >= h && h - k >= 1;
        if (!(mis || ins || del)) {
            const int to = max(cx + 1, max(ci + 1, cd));
            w.emit(WFA_OP_M, h - to);
            h = to;
            mis = cx >= h - 1 && h - k >= 1;
            ins = ci >= h - 1;
            del = cd >= h && h - k >= 1;
        }
        if (mis) {
            w.emit(WFA_OP_X, 1);
            s -= x;
            h -= 1;
        } else if (ins) {
            w.emit(WFA_OP_I, 1);
            s -= e;
            k -= 1;
            h -= 1;
        } else {
            w.emit(WFA_OP_D, 1);
            s -= e;
            k += 1;
        }
    }
    w.emit(WFA_OP_M, h - k);  // score 0: the run from the start (k = 0)
    return true;
}

}  // namespace
