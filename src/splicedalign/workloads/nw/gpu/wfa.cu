// The wavefront algorithm (WFA, diagonal transition; Marco-Sola et al. 2021) on the GPU: one
// thread block per pair (a single pair is a batch of one), exact for gap-affine costs with
// match 0 (linear costs: gap-open 0, no I or D), global, prefix and infix modes, and infix mode's
// gap start (gap_start: D[0] = M[0] = k on every diagonal of row 0, a start inside a gap of a's
// letters; the reach table is then the gap start's, wfa.py reach_table). The recurrences, ranges
// and source rules are those of the CPU WFA (wfa_kernels.py), which is the oracle of the tests.
//
// Diagonal k = h - v, offsets h (letters of b consumed). For each score s (costs divided by
// their gcd on the host), the block computes M[s] (and I[s], D[s]) over diagonals lo(s)..hi(s),
// a warp's 32 consecutive diagonals at a time, then extends M along matching letters, then one
// __syncthreads_or ends the step (and says whether a diagonal reached the end): no launch per
// score. The range of s depends only on the costs and the lengths: hi(s) = min(reach[s], m)
// (infix: m), lo(s) = max(-reach[s], -n), reach[] from the host (wfa.py reach_table; -1 = no
// wavefront at s). One thread (the planner) plans each step a step ahead: its ranges and its
// sources', its ring rows, its room in the pool (struct Step, in shared memory). The last RING
// scores live in a ring of rows (shared memory when it fits, else global; I and D: the last
// e + 1), indexed k + koff; a read outside a row's range is NULL, so no row is ever cleared.
//
// Extension: letters packed 4 bits each (16 a 64-bit word; a and b padded with different pad
// letters, so a run never passes an end), from shared memory when both sequences fit beside the
// ring (from global memory a diagonal's loads are L2 round trips: the wavefront's diagonals read
// lines all over both sequences). Each lane first compares 8 letters (one funnel shift a
// sequence); a lane whose 8 all matched is extended by its whole warp, 256 letters a round.
//
// With KEEP, every step's M (and I, D) is also stored in `keep`, a pool shared by the launch's
// pairs: the planner takes room a chunk at a time (one atomicAdd on `pool_top` a chunk, the
// descriptor's size), so a pair holds about what it uses, not what its cap would need; a pair
// the pool cannot serve gives up. Step s starts at bases[s]. Once the end is reached, thread 0
// walks the path back from the end (WFA2's backtrace on offsets: the source of an M entry is the
// candidate equal to its offset before extension), writing runs (length << 2 | op) from the end
// backwards, the format batch.cu's nw_band_text reads (and wfa.py's runs_cigar for one pair).

#include "splicedalign_device.cuh"
#ifndef __CUDACC_RTC__
#include "wfa.defines.h"
#endif
#include "wfa_common.cuh"

namespace {


struct WfaDesc {
    long long a, b;  // word offsets of the packed sequences in `seqs` (BYTES: byte offsets of the staged codes)
    int n, m;
    long long visits;  // the pair's most diagonals visited (I, D and M count one each) before it gives up
    long long chunk;  // ints its kept wavefronts take from the pool at a time (KEEP)
    long long runs;  // its runs offset
};

__device__ __forceinline__ WfaDesc wfa_desc(const long long* desc, int w) {
    const long long* d = desc + (long long)WFA_DESC * w;
    return WfaDesc{d[0], d[1], int(d[2]), int(d[3]), d[4], d[5], d[6]};
}

// 8 letters from position `pos` of a packed sequence (32-bit words of 8 letters: one funnel shift).
__device__ __forceinline__ unsigned window8(const u64* s, int pos) {
    const unsigned* w = reinterpret_cast<const unsigned*>(s);
    const int at = pos >> 3;
    return __funnelshift_r(w[at], w[at + 1], (pos & 7) * 4);
}

// One score step as planned a step ahead (nw_wfa's planner): its diagonals, those of its sources,
// the ring rows (ints from the ring's start, plus koff: row + k is diagonal k) it writes and reads,
// its room in the pool.
struct alignas(16) Step {
    int lo, hi;  // the wavefront's diagonals
    int xlo, xhi;  // M at s - x
    int elo, ehi;  // at s - e: M (linear costs) or I and D
    int olo, ohi;  // M at s - o - e (gap-affine)
    int m_row, x_row, e_row, o_row;  // M's row of s, M's of s - x, M's (I's) of s - e, M's of s - o - e (+ koff)
    int i_row;  // I's row of s (D's rows follow I's)
    int stop;  // the pair gives up here (its cap, or no room in the pool)
    long long base;  // the step's room in the pool (KEEP)
};

// The planner's own state between steps (struct Step's author).
struct Planner {
    long long cursor, chunk_end;  // its room in the pool: the next free int, the chunk's end
    long long visited;  // diagonals visited up to the planned step (I, D and M count one each)
    int slot, gslot;  // the next planned step's s % ring_size and s % gap_ring
};

// Room for `size` ints in the pool (-1: none left): the planner's chunk, or a new one of at least `chunk`
// ints by one atomicAdd on `pool_top` (not one a step: its round trip would sit on every step's
// critical path).
__device__ __forceinline__ long long pool_take(Planner& pl, long long size, long long chunk,
                                               unsigned long long* pool_top, long long pool_ints) {
    if (pl.cursor + size > pl.chunk_end) {
        const long long want = max(size, chunk);
        const long long at = (long long)atomicAdd(pool_top, (unsigned long long)want);
        if (at + want > pool_ints) return -1;
        pl.cursor = at;
        pl.chunk_end = at + want;
    }
    const long long at = pl.cursor;
    pl.cursor += size;
    return at;
}

}  // namespace

// One block per pair. desc: WFA_DESC int64 fields per pair (wfa.py). out: WFA_OUT int32 per pair:
// steps (-1: gave up at the pair's cap), end column of b, start column of b, runs. gap_start: infix
// mode's gap start (gap-affine: D[0] is M[0]; the walk back may end in D); the last parameter, so the
// others keep their places (nvcc 13 sm_90: as the 2nd-last, the linear score variant with its ring in
// global memory went from 48 registers to 32 and 8 bytes of spills).
// A score step: every thread takes the step's ranges from registers (the reach table read a step
// ahead), the ring's rows by slots kept without a division, then its diagonals (one each while
// the wavefront is narrower than the block); __syncthreads_or ends the step and says whether any
// diagonal reached the end.
// SHARED: the ring and both sequences in shared memory (the host's first choice): every ring and
// letter access a 32-bit shared load, not a generic one with 64-bit address arithmetic.
// BYTES (segments' pieces, whose letters fit in shared memory: seqs_shared): `seqs` holds the staged pair's codes,
// a byte a letter, and the descriptor's a, b their byte offsets; the block packs its piece's letters into shared
// memory itself, so a round needs no pack launch before it (H100, 10^5 1%: its launch call ~0.015 ms of host on the
// path to the sweep's, its 2 blocks a piece 0.014 ms of device ahead of the sweep).
// (The block's work, wfa_block, is nw_wfa's body and nw_wfa_round's, which takes its descriptor from its own
// block index: inlined into both, nw_wfa's registers as they were. p: the pair or piece, whose rows of out, bases
// and the ring in global memory the block takes.)
template <bool AFFINE, bool KEEP, bool SHARED, bool BYTES>
__device__ __forceinline__ void wfa_block(
    const int p, const WfaDesc d, const u64* __restrict__ seqs, const int* __restrict__ reach, int mode,
    int x, int o, int e, int max_steps, int ring_size, int stride, int reach_max, int ring_shared, int seqs_shared,
    int walk_steps, int* __restrict__ ring_global, int* __restrict__ keep, unsigned long long* __restrict__ pool_top,
    long long pool_ints, long long* __restrict__ bases, unsigned* __restrict__ runs, int* __restrict__ out,
    int gap_start) {
    extern __shared__ int smem[];
    static __shared__ u64 found;  // the end: (k + n) << 32 | offset, the lowest diagonal of the step that ends
    static __shared__ Step plans[2];  // step s's plan in plans[s & 1]
    constexpr int ARRAYS = AFFINE ? 3 : 1;
    const int tid = threadIdx.x, threads = blockDim.x, lane = tid & 31;  // threads: a multiple of 32
    const int n = d.n, m = d.m;
    const u64* a = BYTES ? nullptr : seqs + d.a;
    const u64* b = BYTES ? nullptr : seqs + d.b;
    if (SHARED || BYTES || seqs_shared) {  // both sequences into shared memory, after the ring: every extension load
        // then costs ~30 cycles where the wavefront's spread of offsets made them L2 round trips
        const int rows_ints = ring_shared ? (ring_size + 2 * (AFFINE ? e + 1 : 0)) * stride : 0;
        u64* sa = reinterpret_cast<u64*>(smem + ((rows_ints + 1) & ~1));
        const int wa = n / 16 + WFA_PAD_WORDS, wb = m / 16 + WFA_PAD_WORDS;
        u64* sb = sa + wa;
        if (BYTES) {  // nw_wfa_pack's words (the staged bytes are codes, which stand for themselves)
            const unsigned char* bytes = reinterpret_cast<const unsigned char*>(seqs);
            for (int w = tid; w < wa + wb; w += threads) {
                const bool in_a = w < wa;
                const unsigned char* src = bytes + (in_a ? d.a : d.b);
                const int q = in_a ? w : w - wa, count = in_a ? n : m;
                const u64 fill = in_a ? WFA_PAD_A : WFA_PAD_B;
                u64 word = 0;
                for (int j = 0; j < 16; ++j) {
                    const int at = 16 * q + j;
                    word |= (at < count ? u64(src[at]) : fill) << (4 * j);
                }
                sa[w] = word;  // (sb = sa + wa)
            }
        } else {
            for (int w = tid; w < wa; w += threads) sa[w] = a[w];
            for (int w = tid; w < wb; w += threads) sb[w] = b[w];
        }
        a = sa;
        b = sb;
    }
    const bool infix = mode == MODE_INFIX;
    const int koff = min(reach_max, n);  // ring rows hold k = -koff .. at k + koff
    const int gap_ring = AFFINE ? e + 1 : 0;
    const int rows = ring_size + 2 * gap_ring;
    // M's rows are 0 .. ring_size - 1, I's follow, then D's
    // (Step's rows include koff: diagonal k of a row is ring[row + k])
    int* const ring = SHARED || ring_shared ? smem : ring_global + (long long)p * rows * stride;
    int* kept = keep;
    long long* base_of = KEEP ? bases + (long long)p * (max_steps + 1) : nullptr;
    const int oe = o + e;
    const bool ends_free = mode != MODE_GLOBAL;
    const int k_end = m - n;
    // the planner's state, in shared memory (registers are every thread's: 64 a thread at 1,024):
    // its room in the pool, taken a chunk of d.chunk ints at a time (one atomicAdd a chunk, not a
    // step: its round trip would sit on every step's critical path), the planned step's ring slots
    // and the diagonals visited up to it
    static __shared__ Planner pl;
    auto take = [&](int width) -> long long {  // room for `width` diagonals of I, D and M (-1: none left)
        return pool_take(pl, (long long)ARRAYS * width, d.chunk, pool_top, pool_ints);
    };
    // thread `planner` plans each step a step ahead (its ranges, ring rows, room in the pool,
    // whether the pair gives up there), so a step costs the other warps a few shared loads, not
    // the reach table's loads and the ring's slot arithmetic; the last thread, whose warp has
    // diagonals only once the wavefront is nearly as wide as the block
    const int planner = threads - 1;
    auto plan_step = [&](int t, Step& st) {  // (planner) step t's plan, t = 0 or the step after the last planned
        const Range r = span_of(reach_at(reach, t, max_steps), n, m, infix);
        const Range rx = span_of(reach_at(reach, t - x, max_steps), n, m, infix);
        const Range re = span_of(reach_at(reach, t - e, max_steps), n, m, infix);
        const Range ro = AFFINE ? span_of(reach_at(reach, t - oe, max_steps), n, m, infix) : Range{1, 0};
        const int width = r.width();
        pl.visited += (long long)ARRAYS * width;
        long long base = 0;
        int stop = t > max_steps || pl.visited > d.visits;
        if (KEEP && !stop) {
            base = take(width);
            stop = base < 0;
        }
        const int gaps = ring_size * stride + koff;  // I's rows, then D's
        const int slot = pl.slot, gslot = pl.gslot;
        const int e_row = AFFINE ? gaps + slot_back(gslot, e, gap_ring) * stride
                                 : slot_back(slot, e, ring_size) * stride + koff;
        st = Step{r.lo, r.hi, rx.lo, rx.hi, re.lo, re.hi, ro.lo, ro.hi,
                  slot * stride + koff, slot_back(slot, x, ring_size) * stride + koff, e_row,
                  slot_back(slot, oe, ring_size) * stride + koff, gaps + gslot * stride, stop, base};
        pl.slot = slot + 1 == ring_size ? 0 : slot + 1;
        if (AFFINE) pl.gslot = gslot + 1 == gap_ring ? 0 : gslot + 1;
    };
    if (tid == planner) {
        pl = Planner{0, 0, 0, 0, 0};
        plan_step(0, plans[0]);
    }
    if (tid == 0) found = ~0ull;
    __syncthreads();
    bool over = false;
    u64 mine = ~0ull;  // this thread's end (found's key)
    int s = 0;
    const int d_rows = gap_ring * stride;  // from I's rows to D's
    for (;; ++s) {
        const Step st = plans[s & 1];
        if (st.stop) {  // the same for every thread: past the pair's cap, or no room left in the pool
            over = true;
            break;
        }
        if (tid == planner) {  // the next step's plan first: its chain then runs beside this step's diagonals
            if (KEEP) base_of[s] = st.base;
            plan_step(s + 1, plans[(s + 1) & 1]);  // nobody reads that slot before the step's barrier
        }
        const int width = st.hi - st.lo + 1;
        const Range rx{st.xlo, st.xhi}, re{st.elo, st.ehi}, roe{st.olo, st.ohi};
        // the rows as int offsets, ring[row + k]: with the ring in global memory a 32-bit add and one
        // IMAD.WIDE an access, where (ring + row)[k] took a 64-bit add with carry and a LEA pair (SASS, affine:
        // 5 loads and 3 stores a diagonal, 137 -> 118 instructions a round of a warp's diagonals)
        const int out_m = st.m_row, src_x = st.x_row, src_e = st.e_row;  // src_e: M (linear) or I (affine) at s - e
        const int src_oe = st.o_row, src_d = src_e + d_rows, out_i = st.i_row, out_d = out_i + d_rows;
        // diagonal k's M before the extension (and its I, D)
        auto sources = [&](int k, int& iv, int& dv) -> int {
            iv = dv = WFA_NULL;
            if (s == 0) {  // row 0: global and prefix start at k = 0; infix anywhere on row 0 (and in D: gap_start)
                if (AFFINE && gap_start) dv = k;
                return k;
            }
            const int lim = n + k;  // offsets past it leave the table (v > n)
            int g = rx.has(k) ? ring[src_x + k] + 1 : WFA_NULL;
            g = g <= min(m, lim) ? g : WFA_NULL;
            if (AFFINE) {
                const int g1 = roe.has(k - 1) ? ring[src_oe + k - 1] + 1 : WFA_NULL;
                const int g2 = re.has(k - 1) ? ring[src_e + k - 1] + 1 : WFA_NULL;
                const int d1 = roe.has(k + 1) ? ring[src_oe + k + 1] : WFA_NULL;
                const int d2 = re.has(k + 1) ? ring[src_d + k + 1] : WFA_NULL;
                iv = non_negative(valid_h(max(g1, g2), m));
                dv = non_negative(valid_v(max(d1, d2), lim));
                return max(g, max(iv, dv));
            }
            const int gi = re.has(k - 1) ? valid_h(ring[src_e + k - 1] + 1, m) : WFA_NULL;
            const int gd = re.has(k + 1) ? valid_v(ring[src_e + k + 1], lim) : WFA_NULL;
            return max(g, max(gi, gd));
        };
        // diagonal k's M, I and D into the ring (and the pool), and whether it ends the alignment
        auto finish = [&](int k, int mv, int iv, int dv) {
            ring[out_m + k] = mv;
            if (AFFINE) {
                ring[out_i + k] = iv;
                ring[out_d + k] = dv;
            }
            if (KEEP) {
                int* row = kept + st.base + (k - st.lo);
                row[0] = mv;
                if (AFFINE) {
                    row[width] = iv;
                    row[2 * width] = dv;
                }
            }
            if (mv >= 0 && (ends_free ? mv - k == n : k == k_end && mv == m)) {
                mine = min(mine, (u64(unsigned(k + n)) << 32) | unsigned(mv));
            }
        };
        // a warp's 32 consecutive diagonals at a time (the loop is the same for the whole warp:
        // a lane whose first 8 letters matched is then extended by the whole warp, 256 letters a
        // round, where one lane alone took ~55 instructions a 32 letters on the step's critical path)
        for (int k0 = st.lo + tid - lane; k0 <= st.hi; k0 += threads) {
            const int k = k0 + lane;
            const bool on = k <= st.hi;
            int iv = WFA_NULL, dv = WFA_NULL;
            const int mv = on ? sources(k, iv, dv) : WFA_NULL;
            const int kc = on ? k : st.hi;  // a lane past the range probes inside both sequences
            bool more;
            int h = probe8(a, b, mv >= 0 ? mv : max(kc, 0), kc, n, m, more);
            for (unsigned longer = __ballot_sync(FULL_WARP, mv >= 0 && more); longer; longer &= longer - 1) {
                const int from = __ffs(int(longer)) - 1;
                const int got = extend_warp(a, b, __shfl_sync(FULL_WARP, h, from), __shfl_sync(FULL_WARP, k, from),
                                            lane, n, m);
                if (lane == from) h = got;
            }
            if (on) finish(k, mv >= 0 ? h : WFA_NULL, iv, dv);
        }
        if (__syncthreads_or(mine != ~0ull)) break;
    }
    if (!over) {  // the lowest diagonal that reached the end
        if (mine != ~0ull) atomicMin(&found, mine);
        __syncthreads();
    }
    int* o_p = out + (long long)WFA_OUT * p;
    if (over) {  // gave up
        if (tid == 0) {
            o_p[0] = -1;
            o_p[1] = o_p[2] = o_p[3] = 0;
        }
        return;
    }
    const u64 end = found;
    int k = int(end >> 32) - n;
    int h = int(end & 0xffffffffu);
    if (tid == 0) {
        o_p[0] = s;
        o_p[1] = h;
        o_p[2] = 0;
        o_p[3] = 0;
    }
    if (!KEEP) return;
    // The walk back (thread 0; wfa_common.cuh's walk_back: the kept values through windows in the shared
    // memory the ring and letters leave free)
    const int rows_ints = (SHARED || ring_shared) ? (ring_size + 2 * gap_ring) * stride : 0;
    const int room = ((rows_ints + 1) & ~1) +
                     (SHARED || seqs_shared ? 2 * (n / 16 + m / 16 + 2 * WFA_PAD_WORDS) : 0);  // ints
    Runs w{runs + d.runs, 0, 4u, 0u};
    const KeptPool kept_at{kept, base_of, reach, max_steps, n, m, infix};
    static __shared__ int walk_at[3];
    walk_back<AFFINE>(w, kept_at, walk_at, smem, room, walk_steps, ring_size, x, e, oe, s, k, h);
    if (tid == 0) {
        o_p[2] = k;  // (the start column: row 0's offset is k itself)
        o_p[3] = w.close();
    }
}

template <bool AFFINE, bool KEEP, bool SHARED, bool BYTES>
__global__ void __launch_bounds__(WFA_MAX_THREADS) nw_wfa(
    const u64* __restrict__ seqs, const long long* __restrict__ desc, const int* __restrict__ reach, int mode,
    int x, int o, int e, int max_steps, int ring_size, int stride, int reach_max, int ring_shared, int seqs_shared,
    int walk_steps, int* __restrict__ ring_global, int* __restrict__ keep, unsigned long long* __restrict__ pool_top,
    long long pool_ints, long long* __restrict__ bases, unsigned* __restrict__ runs, int* __restrict__ out,
    int gap_start) {
    wfa_block<AFFINE, KEEP, SHARED, BYTES>(blockIdx.x, wfa_desc(desc, blockIdx.x), seqs, reach, mode, x, o, e,
                                           max_steps, ring_size, stride, reach_max, ring_shared, seqs_shared,
                                           walk_steps, ring_global, keep, pool_top, pool_ints, bases, runs, out,
                                           gap_start);
}

namespace {

// BiWFA's letters read backwards (wfa_common.cuh): a pad word precedes each sequence in shared memory, so
// pos >= -1 reads pad letters below 0.
__device__ __forceinline__ unsigned window8_back(const u64* s, int pos, unsigned) { return window8(s, pos - 7); }

// A direction's kept M values as the walk back reads them: step s's diagonals and base (less its
// lowest diagonal) from a table in shared memory, the value from the pool (one global load, where
// kept_get's reach, base and value are three dependent ones).
struct KeptTable {
    const int* kept;
    const long long* base;  // step s's base less its lowest diagonal
    const int *lo, *hi;
    __device__ int operator()(int s, int k) const {
        return s < 0 || k < lo[s] || k > hi[s] ? WFA_NULL : kept[base[s] + k];
    }
    __device__ int operator()(int s, int k, bool&) const { return (*this)(s, k); }
};

// The same values through a window in shared memory: steps S0 - W + 1 .. S0, diagonals K0 +- WFA_WALK_DIAGS
// (copied from a KeptTable by the block); a read outside it sets `miss`.
struct KeptWindow {
    const int* win;  // [W][2 WFA_WALK_DIAGS + 1]
    int S0, K0, W;
    __device__ int operator()(int s, int k, bool& miss) const {
        const int t = S0 - s, j = k - K0 + WFA_WALK_DIAGS;
        if (s < 0) return WFA_NULL;
        if (unsigned(t) >= unsigned(W) || unsigned(j) >= unsigned(2 * WFA_WALK_DIAGS + 1)) {
            miss = true;
            return WFA_NULL;
        }
        return win[t * (2 * WFA_WALK_DIAGS + 1) + j];
    }
};

// A BiWFA step as planned a step ahead: the wavefront's diagonals and its sources', the diagonals
// of step t - 1 (the breakpoint check's), the ring rows (ints from a half's ring start) of t, t - x,
// t - e and t - 1, the ring slot (t % ring_size) and range slot (t % (ring_size + 1)), the room of
// both directions in the pool. Every warp reads the rows where it computed them (SASS: ~25
// instructions a warp a step, ~20 more a diagonal where the compiler recomputed them in the loop).
struct alignas(16) BiStep {
    int lo, hi, xlo, xhi;
    int elo, ehi, plo, phi;
    int m_row, x_row, e_row, p_row;
    int slot, rslot, stop;
    long long base_f, base_r;
};

struct Reaches {
    int at, x, e;  // reach[t], reach[t - x], reach[t - e]
};

}  // namespace

// BiWFA (Marco-Sola et al. 2023) for one pair, linear costs, global mode, ring and letters in
// shared memory: the block's first half computes the forward wavefronts (nw_wfa's step), its second
// half at the same time the reverse ones (the reversed pair: letters read backwards), one barrier a
// step, so about half the steps of nw_wfa. Breakpoint: in step t each half checks its own wavefront
// t - 1 against the other's t - 1 - W .. t - 1 (the reverse half .. t - 2), W = max(x, e) + 1: an
// overlap on diagonal k (forward offset hf, reverse hr on k' = m - n - k, hf + hr >= m) is an
// alignment of cost f + r (the DP's cost is monotone along a diagonal). The optimum c has a split
// (a cell of its path) with f + r = c and |f - r| <= W (its prefix costs rise by at most max(x, e)
// a cell), checked once max(f, r) <= t - 1: after step t no alignment below 2t - 1 - W is unfound,
// so the least overlap at most that ends the search. ring_size: max(x, e) + 3 (rows t - 1 - W .. t).
// With KEEP both directions keep their wavefronts; the block then walks both halves back at once
// (thread 0 forwards, the second half's first thread the reverse) from one cell of the breakpoint's
// diagonal k and joins their runs at runs[0..]: the forward run's first cell bf (its offset before
// the extension) costs f from the start and at most r to the end (the reverse run's cells cost r
// to the end, the cost is monotone along the diagonal and the letters between the two runs match),
// so exactly r with f + r optimal; walk_linear walks from such a cell. The dynamic shared memory is
// at least 32 bytes a step (max_steps + 1: the walk's table of steps).
template <bool KEEP>
__global__ void __launch_bounds__(WFA_MAX_THREADS) nw_biwfa(
    const u64* __restrict__ seqs, const long long* __restrict__ desc, const int* __restrict__ reach, int x, int e,
    int max_steps, int ring_size, int stride, int reach_max, int walk_steps, int* __restrict__ keep,
    unsigned long long* __restrict__ pool_top, long long pool_ints, long long* __restrict__ bases,
    unsigned* __restrict__ runs, int* __restrict__ out) {
    extern __shared__ int smem[];
    static __shared__ u64 best;  // the least overlap: f + r << 40 | f - r + W << 22 | k + n (forward k)
    static __shared__ BiStep biplans[2];
    static __shared__ int walk_from[4];  // where the forward and the reverse walk start, their runs
    static __shared__ int front[2];  // each direction's furthest offset so far (any diagonal)
    const int tid = threadIdx.x, threads = blockDim.x, lane = tid & 31, half = threads >> 1;
    const bool rev = tid >= half;
    const int me = rev ? tid - half : tid;
    const WfaDesc d = wfa_desc(desc, 0);
    const int n = d.n, m = d.m;
    const int W = ring_size - 2, RR = ring_size + 1;
    const int koff = min(reach_max, n);
    const int ring_ints = ring_size * stride;
    int* const rlo = smem + 2 * ring_ints;  // each step's diagonals by range slot
    int* const rhi = rlo + RR;
    u64* const sa = reinterpret_cast<u64*>(smem + ((2 * ring_ints + 2 * RR + 1) & ~1)) + 1;
    const int wa = n / 16 + WFA_PAD_WORDS, wb = m / 16 + WFA_PAD_WORDS;
    u64* const sb = sa + wa + 1;
    for (int w = tid; w < wa; w += threads) sa[w] = seqs[d.a + w];
    for (int w = tid; w < wb; w += threads) sb[w] = seqs[d.b + w];
    if (tid == 0) {
        sa[-1] = WFA_PAD_A * 0x1111111111111111ull;
        sb[-1] = WFA_PAD_B * 0x1111111111111111ull;
    }
    long long* const base_f = bases;
    long long* const base_r = bases + max_steps + 1;
    const int planner = threads - 1;
    // the planner's state in its registers (nw_wfa's is in shared memory: its 1,024 threads' registers are
    // short): its loads and stores of it sat on its chain every step
    Planner bipl{0, 0, 0, 0, 0};
    auto take = [&](int width) -> long long { return pool_take(bipl, width, d.chunk, pool_top, pool_ints); };
    // the reach of steps t, t - x and t - e, loaded a step before plan_step uses them (their round trips,
    // an L2 one each 32 steps, were on the planner's chain, and its warp's, every step)
    auto reaches = [&](int t) {
        return Reaches{reach_at(reach, t, max_steps), reach_at(reach, t - x, max_steps),
                       reach_at(reach, t - e, max_steps)};
    };
    // (planner) step t's plan from its reaches; pr: step t - 1's diagonals (empty for t = 0)
    auto plan_step = [&](int t, Reaches ahead, BiStep& st, Range pr) {
        const Range r = span_of(ahead.at, n, m, false);
        const Range rx = span_of(ahead.x, n, m, false);
        const Range re = span_of(ahead.e, n, m, false);
        const int width = r.width();
        bipl.visited += 2LL * width;
        long long bf = 0, br = 0;
        int stop = t > max_steps || bipl.visited > d.visits;
        if (KEEP && !stop) {
            bf = take(width);
            br = bf < 0 ? -1 : take(width);
            stop = br < 0;
        }
        const int slot = bipl.slot, rslot = bipl.gslot;
        rlo[rslot] = r.lo;
        rhi[rslot] = r.hi;
        st = BiStep{r.lo, r.hi, rx.lo, rx.hi, re.lo, re.hi, pr.lo, pr.hi, slot * stride,
                    slot_back(slot, x, ring_size) * stride, slot_back(slot, e, ring_size) * stride,
                    slot_back(slot, 1, ring_size) * stride, slot, rslot, stop, bf, br};
        bipl.slot = slot + 1 == ring_size ? 0 : slot + 1;
        bipl.gslot = rslot + 1 == RR ? 0 : rslot + 1;
    };
    Reaches ahead{};  // (planner) reaches(t + 1) in step t
    if (tid == planner) {
        plan_step(0, reaches(0), biplans[0], Range{1, 0});
        ahead = reaches(1);
    }
    if (tid == 0) {
        best = ~0ull;
        front[0] = front[1] = -1;
    }
    __syncthreads();
    int* const ring = smem + (rev ? ring_ints : 0) + koff;  // this half's rows
    const int* const other = smem + (rev ? 0 : ring_ints) + koff;
    const u64* const a = sa;
    const u64* const b = sb;
    const int kd = m - n;  // the other direction's diagonal of k: kd - k
    bool over = false;
    u64 mine = ~0ull;
    int t = 0;
    for (;; ++t) {
        const BiStep st = biplans[t & 1];
        if (st.stop) {
            over = true;
            break;
        }
        if (tid == planner) {
            if (KEEP) {
                base_f[t] = st.base_f;
                base_r[t] = st.base_r;
            }
            plan_step(t + 1, ahead, biplans[(t + 1) & 1], Range{st.lo, st.hi});
            ahead = reaches(t + 2);  // (used in the next step)
        }
        const Range rx{st.xlo, st.xhi}, re{st.elo, st.ehi};
        int* const out_m = ring + st.m_row;
        const int* const src_x = ring + st.x_row;
        const int* const src_e = ring + st.e_row;
        int* const kept = KEEP ? keep + (rev ? st.base_r : st.base_f) : nullptr;
        // no overlap before the two directions' furthest offsets add up to m (read here they include
        // step t - 1's, perhaps some of step t's): most steps check nothing
        const int seen = front[rev];
        const bool meet = seen + front[rev ^ 1] >= m;
        const int first = st.lo + me - lane;  // the warp's first diagonal
        if (first <= st.hi) {  // (warp-uniform: a warp past the step's diagonals goes straight on)
            for (int k0 = first; k0 <= st.hi; k0 += half) {
                const int k = k0 + lane;
                const bool on = k <= st.hi;
                int mv = WFA_NULL;
                if (on) {
                    if (t == 0) {
                        mv = k;
                    } else {
                        const int lim = n + k;
                        int g = rx.has(k) ? src_x[k] + 1 : WFA_NULL;
                        g = g <= min(m, lim) ? g : WFA_NULL;
                        const int gi = re.has(k - 1) ? valid_h(src_e[k - 1] + 1, m) : WFA_NULL;
                        const int gd = re.has(k + 1) ? valid_v(src_e[k + 1], lim) : WFA_NULL;
                        mv = max(g, max(gi, gd));
                    }
                }
                const int kc = on ? k : st.hi;
                const int h0 = mv >= 0 ? mv : max(kc, 0);
                bool more;
                int h = rev ? probe8<true>(a, b, h0, kc, n, m, more) : probe8(a, b, h0, kc, n, m, more);
                for (unsigned longer = __ballot_sync(FULL_WARP, mv >= 0 && more); longer; longer &= longer - 1) {
                    const int from = __ffs(int(longer)) - 1;
                    const int hf = __shfl_sync(FULL_WARP, h, from), kf = __shfl_sync(FULL_WARP, k, from);
                    const int got = rev ? extend_warp<true>(a, b, hf, kf, lane, n, m)
                                        : extend_warp(a, b, hf, kf, lane, n, m);
                    if (lane == from) h = got;
                }
                if (on) {
                    out_m[k] = mv >= 0 ? h : WFA_NULL;
                    if (KEEP) kept[k - st.lo] = mv >= 0 ? h : WFA_NULL;
                    // (only an offset past the front as the step began: a few lanes a step, where a warp's
                    // reduction and its lane's atomic were ~17 instructions every warp every step)
                    if (mv >= 0 && h > seen) atomicMax(&front[rev], h);
                }
            }
        }
        if (meet) {  // this half's t - 1 against the other's, a loop of its own: its set-up (the range and
            // ring slots of each step checked) is then paid only in the steps where the fronts can meet
            const int* const prev = ring + st.p_row;  // this half's t - 1
            const int prs = slot_back(st.rslot, 1, RR);
            const int j_last = rev ? t - 2 : t - 1;  // the other half's steps checked: t - 1 - W .. j_last
            for (int k = st.plo + me; k <= st.phi; k += half) {
                const int hv = prev[k], kk = kd - k;
                if (hv < 0) continue;
#pragma unroll 4
                for (int j = max(0, t - 1 - W); j <= j_last; ++j) {  // (no break: loads in flight together)
                    const int js = slot_back(prs, t - 1 - j, RR);
                    // (read only inside step j's diagonals: kk may lie before the ring's first)
                    const int ov = kk >= rlo[js] && kk <= rhi[js]
                                       ? other[slot_back(st.slot, t - j, ring_size) * stride + kk] : WFA_NULL;
                    if (ov >= 0 && hv + ov >= m) {
                        const int f = rev ? j : t - 1, r = rev ? t - 1 : j;
                        mine = min(mine, (u64(f + r) << 40) | (u64(f - r + W) << 22) | u64((rev ? kk : k) + n));
                    }
                }
            }
        }
        if (__syncthreads_or(mine != ~0ull && int(mine >> 40) <= 2 * t - 1 - W)) break;
    }
    if (!over) {
        if (mine != ~0ull) atomicMin(&best, mine);
        __syncthreads();
    }
    if (over) {
        if (tid == 0) {
            out[0] = -1;
            out[1] = out[2] = out[3] = 0;
        }
        return;
    }
    const u64 key = best;
    const int sum = int(key >> 40), f = (sum + int((key >> 22) & 0x3ffff) - W) / 2, r = sum - f;
    const int k = int(key & 0x3fffff) - n;
    if (tid == 0) {
        out[0] = sum;
        out[1] = m;
        out[2] = 0;
        out[3] = 0;
    }
    if (!KEEP) return;
    const int* const kept = keep;
    const unsigned long long rmax = 2ull * max_steps + 4;  // runs of one direction at most
    if (tid == 0) {  // both halves' walks start at the forward run's first cell on diagonal k (below)
        int bf = k;
        if (f > 0) {
            const int lim = n + k;
            int g = kept_get(kept, base_f, reach, max_steps, 0, f - x, k, n, m, false) + 1;
            g = g <= m && g <= lim ? g : WFA_NULL;
            const int ins = valid_h(kept_get(kept, base_f, reach, max_steps, 0, f - e, k - 1, n, m, false) + 1, m);
            const int del = valid_v(kept_get(kept, base_f, reach, max_steps, 0, f - e, k + 1, n, m, false), lim);
            bf = max(g, max(ins, del));
        }
        walk_from[0] = bf;
        walk_from[1] = m - bf;
    }
    __syncthreads();
    // each step's diagonals and bases into the shared memory the rings and letters leave (the host makes
    // it at least 32 bytes a step): the walk's reads are then one global load, not three dependent ones
    const int steps = t + 1;
    long long* const tb = reinterpret_cast<long long*>(smem);  // [2][steps]
    int* const tlo = smem + 4 * steps;
    int* const thi = tlo + 2 * steps;
    for (int i = tid; i < 2 * steps; i += threads) {
        const int st = i < steps ? i : i - steps;
        const Range rg = span_of(reach_at(reach, st, max_steps), n, m, false);
        tlo[i] = rg.lo;
        thi[i] = rg.hi;
        tb[i] = rg.lo <= rg.hi ? (i < steps ? base_f : base_r)[st] - rg.lo : 0;
    }
    __syncthreads();
    Runs wf{runs + 2 * rmax, 0, 4u, 0u}, wr{runs + 3 * rmax, 0, 4u, 0u};
    // The two walkers (thread 0 forwards, thread `half` the reverse) in rounds: the block copies each
    // active walker's window (walk_steps steps back from where it stands, its diagonal +- WFA_WALK_DIAGS)
    // after the table, the walkers walk in them until a read falls outside, then the next round. With
    // windows too short for an operation's reads (max(x, e) + 1 steps) the walkers read the table.
    constexpr int SPAN = 2 * WFA_WALK_DIAGS + 1;
    const int WS = walk_steps > max(x, e) ? walk_steps : 0;
    int* const win = smem + 8 * steps;  // [2][WS][SPAN]
    static __shared__ int walker[2][4];  // s, k, h, done
    if (tid == 0) {
        walker[0][0] = f;
        walker[0][1] = k;
        walker[0][2] = walk_from[0];
        walker[1][0] = r;
        walker[1][1] = kd - k;
        walker[1][2] = walk_from[1];
        walker[0][3] = walker[1][3] = 0;
    }
    const int mine_w = tid == 0 ? 0 : tid == half ? 1 : -1;
    while (true) {
        __syncthreads();
        const int done0 = walker[0][3], done1 = walker[1][3];
        const int s0 = walker[0][0], k0 = walker[0][1], s1 = walker[1][0], k1 = walker[1][1];
        __syncthreads();  // (read by all before a walker writes)
        if (done0 && done1) break;
        if (WS) {
            for (int i = tid; i < 2 * WS * SPAN; i += threads) {
                const int wv = i >= WS * SPAN, rest = i - wv * WS * SPAN, tt = rest / SPAN, j = rest - tt * SPAN;
                if (wv ? done1 : done0) continue;
                const int at = wv ? steps : 0;
                win[i] = KeptTable{kept, tb + at, tlo + at, thi + at}((wv ? s1 : s0) - tt, (wv ? k1 : k0) - WFA_WALK_DIAGS + j);
            }
            __syncthreads();
        }
        if (mine_w >= 0 && !walker[mine_w][3]) {
            const int at = mine_w ? steps : 0;
            int ws = walker[mine_w][0], wk = walker[mine_w][1], wh = walker[mine_w][2];
            Runs& w = mine_w ? wr : wf;
            const bool walked = WS ? walk_linear(w, KeptWindow{win + mine_w * WS * SPAN, ws, wk, WS}, x, e, ws, wk, wh)
                                  : walk_linear(w, KeptTable{kept, tb + at, tlo + at, thi + at}, x, e, ws, wk, wh);
            walker[mine_w][0] = ws;
            walker[mine_w][1] = wk;
            walker[mine_w][2] = wh;
            walker[mine_w][3] = walked;
        }
    }
    if (mine_w >= 0) walk_from[2 + mine_w] = (mine_w ? wr : wf).close();
    __syncthreads();
    const int total = join_runs(runs, runs + 2 * rmax, walk_from[2], runs + 3 * rmax, walk_from[3]);  // (runs[0..])
    if (tid == 0) out[3] = total;
}

// The packed sequences: word w of a sequence holds its letters 16 w .. 16 w + 15, 4 bits each,
// `pad` past its end. One block per sequence; bytes[from[q] ..] (size[q] letters) -> words[to[q] ..]
// (words[q] words). A byte is a code (0..15, as a Pair holds them) or a letter as the user gave it
// (a PairBatch's buffer): code[byte] of a's table for q even, b's for q odd (the sequences
// alternate a, b) is its code; above 15 the byte is no letter of the alphabet: it marks bad[q].
__global__ void nw_wfa_pack(const unsigned char* __restrict__ bytes, const long long* __restrict__ from,
                            const long long* __restrict__ size, const long long* __restrict__ to,
                            const long long* __restrict__ words, const unsigned char* __restrict__ pad,
                            int* __restrict__ bad, const unsigned char* __restrict__ table,
                            u64* __restrict__ packed) {
    const int q = blockIdx.x;
    const unsigned char* src = bytes + from[q];
    const unsigned char* code = table + 256 * (q & 1);
    const long long count = size[q];
    const u64 fill = pad[q];
    for (long long w = threadIdx.x; w < words[q]; w += blockDim.x) {
        u64 word = 0;
        for (int j = 0; j < 16; ++j) {
            const long long at = 16 * w + j;
            u64 letter = fill;
            if (at < count) {
                const unsigned c = code[src[at]];
                if (c > 15u) {
                    bad[q] = 1;
                } else {
                    letter = c;
                }
            }
            word |= letter << (4 * j);
        }
        packed[to[q] + w] = word;
    }
}

namespace {

// A piece's answer as segments.py's check reads it (nw_wfa's out row, infix mode, with its walk's runs).
struct PieceEnd {
    long long score;  // -1: it gave up
    int start, end;  // its path's first and last column of b (the pair's)
    bool opens, closes;  // (gap-affine) its path starts, ends with a D run
};

// The answers of a round of pieces: out (WFA_OUT a piece), each piece's runs (runs_each apart, last first), its
// window's first column (the pack table's from[2 q + 1], less the pair's n: the staged b follows a).
struct PieceAnswers {
    const int* out;
    const unsigned* runs;
    long long runs_each;
    const long long* from;
    long long n_pair;
    int g, affine;
    // (loads through L2, __ldcg: in nw_wfa_round other blocks of the same launch wrote them)
    __device__ PieceEnd operator()(int q) const {
        const int* o = out + (long long)WFA_OUT * q;
        const int c0 = int(__ldcg(from + 2 * q + 1) - n_pair), used = __ldcg(o + 3), steps = __ldcg(o);
        const unsigned* r = runs + runs_each * q;
        const bool walked = affine && used > 0;
        return PieceEnd{steps >= 0 ? (long long)steps * g : -1, c0 + __ldcg(o + 2), c0 + __ldcg(o + 1),
                        walked && (__ldcg(r + used - 1) & 3u) == WFA_OP_D, walked && (__ldcg(r) & 3u) == WFA_OP_D};
    }
};

// v summed over the calling warp (every lane of it), added to *sum by its first lane: one 64-bit add on shared
// memory a warp, where one a thread retried (sm_90 runs it as a CAS loop, ATOMS.CAST.SPIN.64: a round's 260 first
// pieces' adds took ~15 us of the check's 17 on an H100, 10^5 1% linear).
__device__ __forceinline__ void warp_add(unsigned long long* sum, long long v) {
    for (int lanes = 16; lanes > 0; lanes >>= 1) v += __shfl_xor_sync(FULL_WARP, v, lanes);
    if ((threadIdx.x & 31) == 0) atomicAdd(sum, (unsigned long long)v);
}

// A seam where two pieces' paths join into one of their summed cost (segments.settle's).
__device__ __forceinline__ bool joins(const PieceEnd& left, const PieceEnd& right) {
    return left.end == right.start && !(right.opens && !left.closes);
}

}  // namespace

// segments.py's check of a first round of pieces, where it was solved (one block, behind the round's nw_wfa on its
// stream, so that a certified pair needs nothing else back): segments.settle on the first cuts (pieces 0 .. count - 1
// of the round), then, where seams disagree and the round also solved every two neighbouring first pieces as one
// (spec = count - 1 pieces; piece count + k is pieces k and k + 1), on the cuts without the disagreeing seams, whose
// pieces the round then holds unless two neighbouring seams disagree: segments.segmented's first two checks when the
// second needs no solve. Anything else (a piece gave up, the sum past `bound`, the ends, a merged piece missing,
// seams still disagreeing) is "not certified": the host's segmented goes on from the same answers.
// result: certified (1 / 0), the score, the end column, the checks (1, 2), then for each first piece k the round's
// piece that starts at its cut in the certified cuts (k, count + k, or -1 where it is merged into the one before).
// Dynamic shared memory: 2 count ints.
// (pieces_settle: its body, also run by nw_wfa_round's last block)
__device__ __forceinline__ void pieces_settle(const PieceAnswers at, int count, int spec, int whole, int m,
                                              long long bound, long long* __restrict__ result) {
    extern __shared__ int smem[];
    int* const split = smem;  // split[k]: the seam of first pieces k and k + 1 disagrees
    int* const sel = smem + count;  // the round's piece starting at first piece k in the merged cuts (-1: none)
    static __shared__ unsigned long long sums[2];  // the pieces' sums: the first cuts', the merged cuts'
    const int tid = threadIdx.x, threads = blockDim.x;
    if (tid == 0) sums[0] = sums[1] = 0;
    __syncthreads();
    int bad = 0, splits = 0;
    long long mine = 0;  // this thread's pieces' scores
    for (int k = tid; k < count; k += threads) {
        const PieceEnd p = at(k);
        bad |= p.score < 0 || (k == 0 && (p.start != 0 || p.opens)) || (k == count - 1 && whole && p.end != m);
        if (p.score >= 0) mine += p.score;
        split[k] = k + 1 < count && !joins(p, at(k + 1));
        splits |= split[k];
    }
    warp_add(&sums[0], mine);  // (every thread: the block's warps whole)
    bad = __syncthreads_or(bad) || (long long)sums[0] > bound;
    splits = __syncthreads_or(splits);
    int certified = !bad && !splits, rounds = 1;
    long long total = (long long)sums[0];
    int last = count - 1;  // the round's last piece in the certified cuts
    if (!bad && splits && spec == count - 1) {  // the second check, on the merged cuts
        rounds = 2;
        int off = 0;  // a merged piece missing (then nothing else is read), the sum, the ends, a seam
        mine = 0;
        for (int k = tid; k < count; k += threads) {
            sel[k] = -1;
            if (k > 0 && split[k - 1]) continue;  // (first piece k is merged into the one before)
            if (split[k] && split[k + 1]) {  // (split[count - 1] is 0) three pieces as one: not solved
                off = 1;
                continue;
            }
            sel[k] = split[k] ? count + k : k;
            const long long score = at(sel[k]).score;
            off |= score < 0;
            if (score >= 0) mine += score;
        }
        warp_add(&sums[1], mine);  // (the whole block is here: bad, splits and spec are the block's)
        off = __syncthreads_or(off);
        for (int k = tid; k < count && !off; k += threads) {
            if (sel[k] < 0) continue;
            const PieceEnd p = at(sel[k]);
            const int end = sel[k] >= count ? k + 1 : k;  // its last first piece
            off |= k == 0 && (p.start != 0 || p.opens);
            off |= end == count - 1 ? whole && p.end != m : !joins(p, at(sel[end + 1]));
        }
        off = __syncthreads_or(off);
        total = (long long)sums[1];
        certified = !off && total <= bound;
        if (certified) last = sel[count - 1] >= 0 ? count - 1 : sel[count - 2];
    }
    if (tid == 0) {
        result[0] = certified;
        result[1] = total;
        result[2] = certified ? at(last).end : 0;
        result[3] = rounds;
    }
    for (int k = tid; k < count; k += threads) result[4 + k] = rounds == 1 ? k : sel[k];
}

__global__ void nw_pieces_settle(const int* __restrict__ out, const unsigned* __restrict__ runs, long long runs_each,
                                 const long long* __restrict__ from, long long n_pair, int count, int spec, int g,
                                 int affine, int whole, int m, long long bound, long long* __restrict__ result) {
    pieces_settle(PieceAnswers{out, runs, runs_each, from, n_pair, g, affine}, count, spec, whole, m, bound, result);
}

namespace {

// segments.first_asks' piece q of a first round on the pair's n rows: pieces 0 .. count - 1 of the first cuts
// (segments.first_cuts: r_k = k n / count), then with spec every two neighbours as one (piece count + k: first
// pieces k and k + 1); its window of b at the band lo..hi (segments.windows). The descriptor nw_wfa's BYTES variant
// reads (wfa.py's fill_pieces and byte_sources: the staged a at byte 0, b at n_pair), each piece's share of the
// pool (pool_steps + 1 scores of its n + m + 1 diagonals, taken in WFA_POOL_CHUNKS chunks) and its cap (max_steps).
__device__ __forceinline__ WfaDesc first_piece(int q, long long n_pair, int m_pair, int count, int lo, int hi,
                                               int max_steps, int pool_steps, int arrays, long long runs_each) {
    const int k = q < count ? q : q - count, span = q < count ? 1 : 2;
    const long long r0 = k * n_pair / count, r1 = (k + span) * n_pair / count;
    const long long c0 = max(0ll, r0 + lo), c1 = min((long long)m_pair, r1 + hi);
    const long long diagonals = (r1 - r0) + (c1 - c0) + 1;
    const long long share = (long long)(pool_steps + 1) * diagonals * arrays;
    return WfaDesc{r0, n_pair + c0, int(r1 - r0), int(c1 - c0), (long long)(max_steps + 1) * diagonals * arrays,
                   max(1ll, share / WFA_POOL_CHUNKS), q * runs_each};
}

// A round's piece q's answer (its out row) and its walk's runs copied into `mirror`: page-locked host memory laid out
// as the round's out and runs (the answers of its gridDim.x pieces, then runs_each runs a piece), which the device
// writes across the bus as each piece ends, so that the host reads a certified round's runs there after its wait,
// where a copy back of out and runs (room for runs_each runs a piece: 340 KB at 10^5 1% linear, ~3,000 runs used)
// waited for the last block and took the bus after it. (One address space with the host: a page-locked allocation's
// host address is its device address.)
__device__ __forceinline__ void mirror_piece(int q, const int* out, const unsigned* runs, long long runs_each,
                                             int* mirror) {
    const int* const o = out + (long long)WFA_OUT * q;  // (thread 0 wrote it, before the block's barriers)
    if (threadIdx.x < WFA_OUT) mirror[(long long)WFA_OUT * q + threadIdx.x] = o[threadIdx.x];
    const int used = o[3];
    const unsigned* const from = runs + runs_each * q;
    unsigned* const to = reinterpret_cast<unsigned*>(mirror + (long long)WFA_OUT * gridDim.x) + runs_each * q;
    for (int i = threadIdx.x; i < used; i += blockDim.x) to[i] = from[i];
}

}  // namespace

// A guessed first round of segments in one launch (wfa.py's queue_round): each block solves one of
// segments.first_asks' pieces, the merged ones (pieces count ..) on the first blocks (first_piece: its descriptor
// from its piece's index, no plan uploaded), as nw_wfa<AFFINE, true, SHARED, true>
// in infix mode (gap-affine: with the gap start) with its letters packed from the staged bytes, and writes its pack
// table's sources (from[2 q], from[2 q + 1]: n_pair + its window's first column, which the check reads); the last
// block to finish (a ticket from `done`, zero before the launch: the stage's upload) then runs nw_pieces_settle's
// check of the round into `result`, so that nothing on the host comes between the round and its check. `result` (and
// `mirror`, with the alignment; else null: mirror_piece) are page-locked host memory: no copy back after the kernel.
// Its shared memory holds the piece's and, after it, the check's 8 bytes a first piece.
template <bool AFFINE, bool SHARED>
__global__ void __launch_bounds__(WFA_MAX_THREADS) nw_wfa_round(
    const u64* __restrict__ seqs, const int* __restrict__ reach, int x, int o, int e, int max_steps, int ring_size,
    int stride, int reach_max, int walk_steps, int* __restrict__ ring_global, int* __restrict__ keep,
    unsigned long long* __restrict__ pool_top, long long pool_ints, long long* __restrict__ bases,
    unsigned* __restrict__ runs, int* __restrict__ out, long long n_pair, int m_pair, int count, int spec, int lo,
    int hi, int pool_steps, long long runs_each, long long* __restrict__ from, unsigned long long* __restrict__ done,
    int g, int whole, long long bound, long long* __restrict__ result, int* __restrict__ mirror) {
    // the merged pieces (twice a first piece's rows) on the first blocks, so that the longest start in the first
    // wave and the first pieces fill in behind them (H100, 10^5 1% linear, 519 pieces on 264 resident blocks: a
    // merged piece 21 us median, the slowest 55, which started in the second wave and ended at 64 us)
    const int q = int(blockIdx.x) < spec ? count + int(blockIdx.x) : int(blockIdx.x) - spec;
    const WfaDesc d = first_piece(q, n_pair, m_pair, count, lo, hi, max_steps, pool_steps, AFFINE ? 3 : 1, runs_each);
    if (threadIdx.x == 0) {
        from[2 * q] = d.a;
        from[2 * q + 1] = d.b;
    }
    wfa_block<AFFINE, true, SHARED, true>(q, d, seqs, reach, MODE_INFIX, x, o, e, max_steps, ring_size, stride,
                                          reach_max, SHARED, 1, walk_steps, ring_global, keep, pool_top, pool_ints,
                                          bases, runs, out, AFFINE);
    static __shared__ unsigned long long ticket;
    __threadfence();  // (every thread's writes: its answer, runs, sources, before the block's ticket)
    __syncthreads();
    if (threadIdx.x == 0) ticket = atomicAdd(done, 1ull);
    __syncthreads();
    if (mirror != nullptr) mirror_piece(q, out, runs, runs_each, mirror);  // (after the ticket: off its fence)
    if (ticket != gridDim.x - 1ull) return;
    __threadfence();
    pieces_settle(PieceAnswers{out, runs, runs_each, from, n_pair, g, AFFINE}, count, spec, whole, m_pair, bound,
                  result);
}

#ifndef __CUDACC_RTC__
// nvcc builds instantiate the shipped variants, wfa.NAMES as the generated header lists them (NW_WFA_INSTANCES,
// NW_WFA_ROUND_INSTANCES, NW_BIWFA_INSTANCES); NVRTC only the one a launch asks for.
#define NW_WFA(AFFINE, KEEP, SHARED, BYTES)                                                                 \
    template __global__ void nw_wfa<AFFINE, KEEP, SHARED, BYTES>(const u64*, const long long*, const int*, int, int, int, \
                                                          int, int, int, int, int, int, int, int, int*, int*,      \
                                                          unsigned long long*, long long, long long*, unsigned*, int*, \
                                                          int);
NW_WFA_INSTANCES(NW_WFA)
#define NW_WFA_ROUND(AFFINE, SHARED)                                                                           \
    template __global__ void nw_wfa_round<AFFINE, SHARED>(                                                     \
        const u64*, const int*, int, int, int, int, int, int, int, int, int*, int*, unsigned long long*, long long, \
        long long*, unsigned*, int*, long long, int, int, int, int, int, int, long long, long long*,                 \
        unsigned long long*, int, int, long long, long long*, int*);
NW_WFA_ROUND_INSTANCES(NW_WFA_ROUND)
#define NW_BIWFA(KEEP)                                                                                       \
    template __global__ void nw_biwfa<KEEP>(const u64*, const long long*, const int*, int, int, int, int, int, int, int, \
                                            int*, unsigned long long*, long long, long long*, unsigned*, int*);
NW_BIWFA_INSTANCES(NW_BIWFA)
#endif
