// The wavefront algorithm (WFA) of ONE long pair on a thread-block cluster (sm_90): BiWFA with linear costs,
// the forward WFA with gap-affine costs, global mode, for pairs whose letters do not fit one block's shared
// memory (10^6 x 10^6). The definitions, ranges and sources are nw_wfa's and nw_biwfa's (wfa.cu): diagonal
// k = h - v, offsets h (letters of b consumed), hi(s) = min(reach[s], m), lo(s) = max(-reach[s], -n). Linear
// (gap-open 0): M[s][k] from M[s - x][k] + 1, M[s - e][k - 1] + 1 and M[s - e][k + 1], then the run of
// matches; the reverse wavefronts the same on the reversed pair (its diagonal k' = m - n - k for the cell of
// forward diagonal k). Gap-affine (AFFINE, WFA2's three components): I[s][k] from M[s - o - e][k - 1] + 1 and
// I[s - e][k - 1] + 1, D[s][k] from M[s - o - e][k + 1] and D[s - e][k + 1], M[s][k] the most of
// M[s - x][k] + 1, I[s][k], D[s][k], then the run of matches.
//
// Why a cluster: one block (nw_wfa) gives each thread ~5 diagonals a step at 10^6 1% (~4,700
// diagonals a step on average), each an L2 round trip for its letters (the wavefront's offsets
// spread over both sequences): 7.2 us a step, ~14,000 steps. Here WFA_CLUSTER blocks (one a
// multiprocessor) share the diagonals, ~1 a thread, and step together through cluster barriers
// (barrier.cluster arrive.release / wait.acquire, ~1.2 us each on an H100) in place of __syncthreads:
// one every `per` steps (up to e: a step reads its neighbours' diagonals e (or o + e) steps back, its
// own x back).
//
// Diagonals are dealt out in groups of 32 (a warp's), round robin over the cluster's blocks and
// within a block over its warps (group G = (k + koff) / 32 belongs to block G % C, local group
// j = G / C, warp j % warps): every step's range is spread evenly whatever its width, and a thread
// keeps the same diagonals from step to step. A block's ring (the last scores of M, I and D) holds
// its own groups, each with a halo diagonal on either side (34 ints a group): the group's first
// and last lanes store their value into the neighbouring groups' halos in the other blocks' shared
// memory (mapa + st.shared::cluster, no wait) before the next barrier, so every read of a step is a
// 32-bit load of the block's own shared memory. A read outside a source wavefront's range is NULL,
// so no row is ever cleared.
//
// BiWFA (linear costs; Marco-Sola et al. 2023, nw_biwfa's rule): the thread of forward diagonal k computes in
// the same step the forward M[s][k] and the reverse M[s][k'] of the same cell's diagonal k' = m - n - k (its
// own ring rows, the same halos: the reverse's k' -+ 1 is k +- 1), about half of the forward's steps and
// barriers (10^6 1%: ~7,100 of 14,191). The breakpoint check stays in the thread: after its step s, F[s][k]
// against R[s - d .. s][k'] and R[s][k'] against F[s - d .. s - 1][k], d = max(x, e) (an overlap, forward
// offset + reverse offset >= m, is an alignment of cost f + r: the DP's cost is monotone along a diagonal;
// the optimum has a cell of its path with f + r = c and |f - r| <= d, a cost rising by at most d a cell), first
// against each direction's running maximum on the diagonal (two rows: most steps check nothing). A thread's
// least overlap goes into every block's `found` by a 32-bit remote atomicMin (64-bit remote atomics did not
// land in nw-next9's tries), read after the barrier, so every block stops at the same barrier: once the least
// overlap is at most 2 t + 2 - d after step t (an unfound split has max(f, r) > t). `found` is two ints, the
// interval's parity picks one: interval i's reductions go into found[i & 1], read after barrier i, and each thread
// keeps the least it has read. A block past barrier i reduces into found[(i + 1) & 1] only, and none reaches
// interval i + 2 before every thread has passed barrier i + 1, i.e. has read found[i & 1]: every thread reads the
// same values, so every block stops at the same barrier by the memory model, not by timing (values only fall: a
// slot is never reset). The gap-affine kernel's end flag alike (the end's step + 1, stored once).
//
// The letters stay in global memory (4 bits each, packed by wfa.cu's nw_wfa_pack), read through
// the read-only path (L1): each thread's diagonals move a letter or two a step, so their lines stay
// in its multiprocessor's L1 between steps. Extension: nw_wfa's (8 letters a lane, then the whole
// warp 256 letters a round for a lane whose 8 all matched); the reverse reads the letters backwards
// (window8_back: the pad for the letters before a sequence's start).
//
// With KEEP every step's M (and I, D; or the reverse's M) is stored in `keep` (step s's diagonals lo(s)..hi(s)
// from bases[s], M then I then D, or the forward's then the reverse's, bases written by the cluster's first
// thread). Gap-affine: after the last barrier block 0 walks back from the end (wfa_common.cuh's walk_back,
// nw_wfa's: its thread 0 through walk_wfa (M, and I and D) in windows of the kept values that the block
// copies into its shared memory). BiWFA: the breakpoint (the least overlap's lowest diagonal, its forward
// score) goes to blocks 0 and 1 through two more barriers; block 0 walks the forward back from the forward
// run's first cell on it, block 1 the reverse from the same cell at the same time (walk_linear in windows,
// nw_biwfa's walks), and block 0 joins their runs. Runs (length << 2 | op) from the end backwards, the
// format batch.cu's nw_band_text reads.

// splicedalign: archs 90 (clusters and their barriers need sm_90; wfa_cluster.applies asks for it only there)
#include "splicedalign_device.cuh"
#ifndef __CUDACC_RTC__
#include "wfa_cluster.defines.h"
#endif
#include "wfa_common.cuh"

namespace {

constexpr int GROUP = WFA_GROUP_INTS;  // ints of a group's ring row: its 32 diagonals and a halo on either side
constexpr int CONTROL = WFA_CONTROL_INTS;  // ints before the ring: the end's flag (BiWFA: the least overlap) by
                                           // the interval's parity (2 ints), the walk's anchor (3 ints from the
                                           // second: written only after the steps, once every thread has read
                                           // the flags)
static_assert(CONTROL % 2 == 0, "the ring's room holds the walk's 8-byte window bases (walk_windows)");
constexpr int NONE = 0x7fffffff;  // (BiWFA) no overlap found
// BiWFA: ints after the hints: the breakpoint's diagonal + koff, its forward score, the reverse walk's runs, the
// forward's
static_assert(WFA_TAIL_INTS == 4, "the tail's ints");

#ifndef WFA_CLUSTER_EMU  // (the host build of the tests gives its own)
// This block's rank in its cluster.
__device__ __forceinline__ unsigned cluster_rank() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
#else
    return 0;
#endif
}

// Every thread of the cluster: writes before it (shared memory of any block, global) are seen after it.
__device__ __forceinline__ void cluster_sync() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
#else
    __trap();
#endif
}

// The address in block `rank`'s shared memory of the place `local` has in this block's.
__device__ __forceinline__ unsigned remote_at(int* local, unsigned rank) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    const unsigned at = unsigned(__cvta_generic_to_shared(local));
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(at), "r"(rank));
    return remote;
#else
    __trap();
    return 0;
#endif
}

// `value` into block `rank`'s shared memory at the place `local` has in this block's.
__device__ __forceinline__ void store_remote(int* local, unsigned rank, int value) {
    asm volatile("st.shared::cluster.s32 [%0], %1;" ::"r"(remote_at(local, rank)), "r"(value) : "memory");
}

// The least of `value` and block `rank`'s int at the place `local` has in this block's (a 32-bit remote
// reduction: seen by that block after the next cluster barrier).
__device__ __forceinline__ void min_remote(int* local, unsigned rank, int value) {
    asm volatile("red.relaxed.cluster.shared::cluster.min.s32 [%0], %1;" ::"r"(remote_at(local, rank)), "r"(value)
                 : "memory");
}
#endif

// 8 letters from position `pos` of a packed sequence (32-bit words of 8 letters: one funnel shift),
// through the read-only path.
__device__ __forceinline__ unsigned window8(const u64* s, int pos) {
    const unsigned* w = reinterpret_cast<const unsigned*>(s);
    const int at = pos >> 3;
    return __funnelshift_r(__ldg(w + at), __ldg(w + at + 1), (pos & 7) * 4);
}

// The 8 letters ending at `pos` (wfa_common.cuh): the word before a sequence (none before a, a's pad before b)
// is `pad`.
__device__ __forceinline__ unsigned window8_back(const u64* s, int pos, unsigned pad) {
    const unsigned* w = reinterpret_cast<const unsigned*>(s);
    const int from = pos - 7, at = from >> 3;
    return __funnelshift_r(at >= 0 ? __ldg(w + at) : pad, __ldg(w + at + 1), (from & 7) * 4);
}

// The diagonals of score s (global mode): reach[s] clamped to the pair; none outside 0..last.
__device__ __forceinline__ int reach_of(const int* __restrict__ reach, int s, int last) {
    return s < 0 || s > last ? -1 : __ldg(reach + s);
}
__device__ __forceinline__ Range clamped(int r, int n, int m) {
    return r < 0 ? Range{1, 0} : Range{max(-r, -n), min(r, m)};
}
// (written out, not as clamped(reach_of(..)): the gap-affine step's SASS as it was, 56 registers)
__device__ __forceinline__ Range range_at(const int* __restrict__ reach, int s, int last, int n, int m) {
    const int r = s < 0 || s > last ? -1 : __ldg(reach + s);
    return r < 0 ? Range{1, 0} : Range{max(-r, -n), min(r, m)};
}

// Linear costs: M[s][k] before its run of matches from the ring rows of s - x (at `at`) and s - e (k - 1 at
// `below`, k + 1 at `above`: the reverse's k' -+ 1 lie at at +- 1), NULL outside the sources' ranges.
__device__ __forceinline__ int linear_sources(const int* src_x, const int* src_e, int at, int below, int above,
                                              Range rx, Range re, int k, int n, int m) {
    const int lim = n + k;  // offsets past it leave the table (v > n)
    int gx = rx.has(k) ? src_x[at] + 1 : WFA_NULL;
    gx = gx <= min(m, lim) ? gx : WFA_NULL;
    int gi = re.has(k - 1) ? src_e[below] + 1 : WFA_NULL;
    gi = gi <= m ? gi : WFA_NULL;
    int gd = re.has(k + 1) ? src_e[above] : WFA_NULL;
    gd = gd <= lim ? gd : WFA_NULL;
    return max(gx, max(gi, gd));
}

// A warp's probe of a direction's run of matches (REV: the reverse's) for its 32 diagonals, its loads issued
// (`probe`), then resolved (`run`): each lane's 8 letters from its cell and, beside them, the first 256 letters
// of the local group's hint (the lane whose first 8 letters matched last step: the optimal path's diagonal,
// ~70 letters a step at 10^6 1%) compared by the whole warp, their loads in one round trip where the probe and
// then the warp extension took two; then the warp extends the lanes whose 8 all matched, 256 letters a round.
// BiWFA probes both directions before it resolves either: both directions' loads in one round trip.
template <bool REV>
struct GroupRun {
    int mv, k, start, kc;  // the lane's value before its run (NULL: none), diagonal, the run's start, clamped k
    int from_c, hc, kcd;  // the hint's lane, its start and diagonal
    bool fused;  // the hint's lane has a value (the same for the warp)
    unsigned xc, x;  // the hint's 8 letters at 8 lane, the lane's own 8

    // (lane 0's read of the hint, after its own write of the last step: the warp's lanes may be a step apart)
    __device__ __forceinline__ void probe(const u64* a, const u64* b, const int* hint, int lane, int n, int m) {
        start = mv >= 0 ? mv : max(kc, 0);
        const int cand = __shfl_sync(FULL_WARP, *hint, 0);
        from_c = cand & 31;
        hc = __shfl_sync(FULL_WARP, start, from_c);
        kcd = __shfl_sync(FULL_WARP, k, from_c);
        fused = cand >= 0 && __shfl_sync(FULL_WARP, mv, from_c) >= 0;
        xc = fused ? xor8<REV>(a, b, hc, kcd, 8 * lane, n, m) : 0u;
        bool more;
        x = unsigned(probe8<REV>(a, b, start, kc, n, m, more) - start);  // (the run's letters, 8: all matched)
    }

    // the offset after the lane's run; the hint of the next step into `hint`
    __device__ __forceinline__ int run(const u64* a, const u64* b, int* hint, int lane, int n, int m) {
        int h = start + int(x);
        const unsigned ran = __ballot_sync(FULL_WARP, mv >= 0 && x == 8u);
        if (lane == 0) *hint = ran ? __ffs(int(ran)) - 1 : -1;
        unsigned longer = ran;
        if (fused) {
            const unsigned differ = __ballot_sync(FULL_WARP, xc != 0);
            int got;
            if (differ) {
                const int first = __ffs(int(differ)) - 1;
                got = hc + 8 * first + run_of<REV>(__shfl_sync(FULL_WARP, xc, first));
            } else {
                got = extend_warp<REV>(a, b, hc + 256, kcd, lane, n, m);
            }
            if (lane == from_c) h = got;
            longer &= ~(1u << from_c);
        }
        for (; longer; longer &= longer - 1) {
            const int from = __ffs(int(longer)) - 1;
            const int got = extend_warp<REV>(a, b, __shfl_sync(FULL_WARP, h, from), __shfl_sync(FULL_WARP, k, from),
                                             lane, n, m);
            if (lane == from) h = got;
        }
        return h;
    }
};

// The group's edges into the neighbouring groups' halos (their blocks' rings): lane 0's value of `row` and of
// `left` to the left group's last place, lane 31's of `row` and of `right` to the right group's first.
__device__ __forceinline__ void edge_stores(int* row, int v, int* left, int lv, int* right, int rv, int g, int lane) {
    constexpr int C = WFA_CLUSTER;
    if (lane == 0 && g > 0) {
        const int gl = g - 1, to = GROUP * (gl / C) + GROUP - 1;
        store_remote(row + to, unsigned(gl % C), v);
        store_remote(left + to, unsigned(gl % C), lv);
    }
    if (lane == 31) {
        const int gr = g + 1, to = GROUP * (gr / C);
        store_remote(row + to, unsigned(gr % C), v);
        store_remote(right + to, unsigned(gr % C), rv);
    }
}

}  // namespace

// One pair (desc: wfa.py's descriptor; its a, b, n, m, runs), WFA_CLUSTER blocks of `threads` (a
// multiple of 32). smem: CONTROL ints, ring_size rows of M then gap_ring rows of I and of D (AFFINE) or
// ring_size rows of the reverse's M and a row of each direction's running maximum (linear: BiWFA), each of
// `stride` ints (GROUP a local group), an int a local group and direction (the extension's hint), TAIL ints
// (BiWFA). koff: group G holds k = 32 G - koff .. + 31 (the forward's and, BiWFA, the reverse's diagonals).
// out: steps (the score; -1: gave up past max_steps (a direction's) or the pool), end column of b, start
// column of b (0), runs.
// `per` steps (at most e) between two cluster barriers: step s reads its neighbours' diagonals at
// s - e (M linear; I, D affine) and s - o - e (M affine) only, written before the interval's barrier,
// and its own at s - x (the same thread; BiWFA's check s - max(x, e)); a thread may then be `per` - 1 steps
// ahead of another, so ring_size >= max(x + 1, o + e + per) and gap_ring >= e + per.
template <bool AFFINE, bool KEEP>
__device__ void wfa_cluster_body(int* smem, const u64* __restrict__ seqs, const long long* __restrict__ desc,
                                 const int* __restrict__ reach, int x, int o, int e, int max_steps, int ring_size,
                                 int gap_ring, int stride, int koff, int per, int walk_steps,
                                 int* __restrict__ keep, long long pool_ints, long long* __restrict__ bases,
                                 unsigned* __restrict__ runs, int* __restrict__ out) {
    constexpr bool BI = !AFFINE;  // linear costs: BiWFA
    constexpr int ARRAYS = AFFINE ? 3 : 2;  // kept a step: M, I and D; or the forward's M and the reverse's
    const int tid = threadIdx.x, threads = blockDim.x, lane = tid & 31, warp = tid >> 5, warps = threads >> 5;
    const unsigned rank = cluster_rank();
    constexpr int C = WFA_CLUSTER;
    const long long* dp = desc;
    const int n = int(dp[2]), m = int(dp[3]);
    const u64* a = seqs + dp[0];
    const u64* b = seqs + dp[1];
    const int locals = stride / GROUP;
    int* const ring = smem + CONTROL;
    int* const gaps = ring + ring_size * stride;  // I's gap_ring rows, then D's (AFFINE); the reverse's ring (BI)
    const int d_rows = gap_ring * stride;
    int* const fronts = gaps + ring_size * stride;  // (BI) each direction's most offset so far a diagonal: 2 rows
    int* const hints = BI ? fronts + 2 * stride : gaps + 2 * d_rows;  // per local group (and direction): the lane
                                                                      // whose first 8 letters matched last step
    int* const tail = hints + 2 * locals;  // (BI) TAIL ints
    const int hint_ints = BI ? 2 * locals : locals;
    for (int j = tid; j < hint_ints; j += threads) hints[j] = -1;
    if (BI) {
        for (int i = tid; i < 2 * stride; i += threads) fronts[i] = WFA_NULL;
    }
    // AFFINE: 1 + the end's step once it is reached (stored by the end's thread in every block); BI: the least
    // overlap's cost found (remote atomicMin by the thread that found it, into every block). Two ints: interval
    // i's into found[i & 1] (the top's comment); NONE: nothing yet
    volatile int* const found = smem;
    if (tid == 0) {
        found[0] = NONE;
        found[1] = NONE;
        if (BI) tail[0] = NONE;
    }
    cluster_sync();  // (every block started and cleared its flag before any store into it)
    const int k_end = m - n;  // (BI: the reverse's diagonal of forward k is k_end - k)
    const int d = max(x, e);  // (BI) a cost rises by at most d a cell
    int least = NONE;  // (BI) this thread's least overlap: its cost, its diagonal + koff << 32 | forward score
    unsigned long long where = ~0ull;
    bool over = false;
    long long base = 0;  // the step's first int in the pool (KEEP)
    int slot = 0;  // s % ring_size
    int gslot = 0;  // s % gap_ring (AFFINE)
    const int oe = o + e;
    int s = 0;
    bool ended = false;  // (the end's thread) found it already
    // the least of found this thread has read << 1 | the interval's parity (its flag: found[stop & 1]), one register
    // (flags are never negative)
    unsigned stop = unsigned(NONE) << 1;
    // the reach of the step and its sources loaded a step before, in registers across the barrier (which empties
    // L1: the first step of an interval read them from L2 on its chain before its sources): BiWFA's 10^6 1% kernel
    // 15.65 -> 14.69 ms, the gap-affine alignment's 106.9 -> 98.0 (that variant's schedule; main's 97.3) on an
    // H100; not the gap-affine score's, 90.9 without it, 96.2 with it (56 registers, not 64)
    constexpr bool AHEAD = BI || KEEP;
    int ahead_s = reach_of(reach, 0, max_steps), ahead_x = -1, ahead_e = -1, ahead_o = -1;  // (step 0's)
    while (true) {  // `per` steps between two cluster barriers
        for (int sub = 0; sub < per; ++sub, ++s) {
            const Range cur = AHEAD ? clamped(ahead_s, n, m) : range_at(reach, s, max_steps, n, m);
            const Range rx = AHEAD ? clamped(ahead_x, n, m) : range_at(reach, s - x, max_steps, n, m);
            const Range re = AHEAD ? clamped(ahead_e, n, m) : range_at(reach, s - e, max_steps, n, m);
            const Range ro = !AFFINE ? Range{1, 0}
                             : AHEAD ? clamped(ahead_o, n, m) : range_at(reach, s - oe, max_steps, n, m);
            if (AHEAD) {
                ahead_s = reach_of(reach, s + 1, max_steps);
                ahead_x = reach_of(reach, s + 1 - x, max_steps);
                ahead_e = reach_of(reach, s + 1 - e, max_steps);
                if (AFFINE) ahead_o = reach_of(reach, s + 1 - oe, max_steps);
            }
            const int width = cur.hi - cur.lo + 1;
            if (s > max_steps || (KEEP && base + ARRAYS * width > pool_ints)) {  // the same for every thread
                over = true;
                break;
            }
            if (KEEP && rank == 0 && tid == 0) bases[s] = base;
            const int xs = slot - x, es = slot - e, os = slot - oe, ges = gslot - e;
            const int x_row = (xs < 0 ? xs + ring_size : xs) * stride, e_row = (es < 0 ? es + ring_size : es) * stride;
            int* const out_m = ring + slot * stride;
            const int* const src_x = ring + x_row;
            const int* const src_e = ring + e_row;  // M at s - e (linear)
            const int* const src_o = ring + (os < 0 ? os + ring_size : os) * stride;  // M at s - o - e (affine)
            int* const out_i = gaps + gslot * stride;
            int* const out_d = out_i + d_rows;
            const int* const src_i = gaps + (ges < 0 ? ges + gap_ring : ges) * stride;  // I at s - e (affine)
            const int* const src_d = src_i + d_rows;
            int* const out_r = gaps + slot * stride;  // (BI) the reverse's rows
            // the step's diagonals, BI the forward's and the reverse's (forward k = k_end - k', k' in cur)
            const Range all = !BI || cur.lo > cur.hi ? cur
                                                     : Range{min(cur.lo, k_end - cur.hi), max(cur.hi, k_end - cur.lo)};
            // this block's groups of the step: G = rank + C j, G from (lo + koff) / 32 to (hi + koff) / 32
            const int g_lo = (all.lo + koff) >> 5, g_hi = (all.hi + koff) >> 5;
            const int j_first = g_lo <= int(rank) ? 0 : (g_lo - int(rank) + C - 1) / C;
            // warp w takes local groups j = w, w + warps, ... (the same diagonals every step)
            const int j_start = j_first + ((warp - j_first) % warps + warps) % warps;
            for (int j = j_start; int(rank) + C * j <= g_hi; j += warps) {
                const int g = int(rank) + C * j;
                const int k = 32 * g - koff + lane;
                // (BI: a group between the two directions' diagonals, lengths far apart: nothing to do)
                if (BI && k - lane > cur.hi && k - lane + 31 < k_end - cur.hi) continue;
                if (BI && k - lane + 31 < cur.lo && k - lane > k_end - cur.lo) continue;
                const int at = GROUP * j + lane + 1;  // k's place in a ring row
                const bool on = cur.has(k);
                GroupRun<false> fw;
                fw.k = k;
                fw.kc = min(max(k, cur.lo), cur.hi);  // a lane outside the range probes inside both sequences
                fw.mv = WFA_NULL;
                int iv = WFA_NULL, dv = WFA_NULL;
                if (on) {
                    if (s == 0) {
                        fw.mv = k;  // (k = 0: global mode starts at the origin)
                    } else if (AFFINE) {  // (nw_wfa's sources: a NULL source plus one stays below 0)
                        const int lim = n + k;
                        int gx = rx.has(k) ? src_x[at] + 1 : WFA_NULL;
                        gx = gx <= min(m, lim) ? gx : WFA_NULL;
                        const int g1 = ro.has(k - 1) ? src_o[at - 1] + 1 : WFA_NULL;
                        const int g2 = re.has(k - 1) ? src_i[at - 1] + 1 : WFA_NULL;
                        const int d1 = ro.has(k + 1) ? src_o[at + 1] : WFA_NULL;
                        const int d2 = re.has(k + 1) ? src_d[at + 1] : WFA_NULL;
                        iv = max(g1, g2);
                        iv = iv <= m && iv >= 0 ? iv : WFA_NULL;
                        dv = max(d1, d2);
                        dv = dv <= lim && dv >= 0 ? dv : WFA_NULL;
                        fw.mv = max(gx, max(iv, dv));
                    } else {
                        fw.mv = linear_sources(src_x, src_e, at, at - 1, at + 1, rx, re, k, n, m);
                    }
                }
                GroupRun<true> rv;  // (BI) the reverse's diagonal k' of the same cells
                const int kr = k_end - k;
                const bool on_r = BI && cur.has(kr);
                if (BI) {
                    rv.k = kr;
                    rv.kc = min(max(kr, cur.lo), cur.hi);
                    rv.mv = !on_r ? WFA_NULL
                            : s == 0 ? kr
                                     : linear_sources(gaps + x_row, gaps + e_row, at, at + 1, at - 1, rx, re, kr, n, m);
                }
                int* const hint = hints + j;
                fw.probe(a, b, hint, lane, n, m);
                if (BI) rv.probe(a, b, hint + locals, lane, n, m);
                const int h = fw.run(a, b, hint, lane, n, m);  // (the whole warp)
                const int v = fw.mv >= 0 ? h : WFA_NULL;
                if (AFFINE && on) {
                    out_m[at] = v;
                    out_i[at] = iv;
                    out_d[at] = dv;
                    if (KEEP) {
                        int* const row = keep + base + (k - cur.lo);
                        row[0] = v;
                        row[width] = iv;
                        row[2 * width] = dv;
                    }
                    // the group's edges into the neighbouring groups' halos: M both ways, D to the left (read at
                    // k + 1), I to the right (read at k - 1)
                    edge_stores(out_m, v, out_d, dv, out_i, iv, g, lane);
                    if (k == k_end && v == m && !ended) {  // the end: its step + 1 into every block
                        ended = true;
                        for (int q = 0; q < C; ++q) store_remote(const_cast<int*>(found + (stop & 1)), unsigned(q), s + 1);
                    }
                }
                if (BI) {
                    const int hr = rv.run(a, b, hint + locals, lane, n, m);
                    const int vr = rv.mv >= 0 ? hr : WFA_NULL;
                    // both directions' values into the ring and the neighbouring groups' halos, NULL outside
                    // their ranges (never read there: a read outside a source's range is NULL)
                    out_m[at] = v;
                    out_r[at] = vr;
                    if (KEEP && on) keep[base + (k - cur.lo)] = v;
                    if (KEEP && on_r) keep[base + width + (kr - cur.lo)] = vr;
                    edge_stores(out_m, v, out_r, vr, out_r, vr, g, lane);
                    // the breakpoint check: each direction's new value against the other's running maximum on the
                    // diagonal first, then against its rows of s - d .. s (the reverse's) or .. s - 1 (the forward's)
                    const int most_f = max(fronts[at], on ? v : WFA_NULL);
                    const int most_r = max(fronts[stride + at], on_r ? vr : WFA_NULL);
                    if (on) fronts[at] = most_f;
                    if (on_r) fronts[stride + at] = most_r;
                    const bool check_f = on && v >= 0 && v + most_r >= m;
                    const bool check_r = on_r && vr >= 0 && vr + most_f >= m;
                    if (check_f || check_r) {
                        for (int t = max(s - d, 0); t <= s; ++t) {
                            const Range rt = range_at(reach, t, max_steps, n, m);
                            const int row = slot_back(slot, s - t, ring_size) * stride + at;
                            int cost = NONE, fwd = 0;
                            if (check_f && rt.has(kr) && gaps[row] >= 0 && v + gaps[row] >= m) {
                                cost = s + t;
                                fwd = s;
                            }
                            if (check_r && t < s && rt.has(k) && ring[row] >= 0 && ring[row] + vr >= m &&
                                t + s < cost) {
                                cost = t + s;
                                fwd = t;
                            }
                            const unsigned long long key = (unsigned long long)(k + koff) << 32 | unsigned(fwd);
                            if (cost != NONE && (cost < least || (cost == least && key < where))) {
                                if (cost < least) {
                                    for (int q = 0; q < C; ++q) min_remote(const_cast<int*>(found + (stop & 1)), unsigned(q), cost);
                                }
                                least = cost;
                                where = key;
                            }
                        }
                    }
                }
            }
            if (KEEP) base += ARRAYS * width;
            slot = slot + 1 == ring_size ? 0 : slot + 1;
            if (AFFINE) gslot = gslot + 1 == gap_ring ? 0 : gslot + 1;
        }
        cluster_sync();
        stop = min(stop >> 1, unsigned(found[stop & 1])) << 1 | (~stop & 1);
        const int seen = int(stop >> 1);
        if (BI ? seen <= 2 * s - d : seen != NONE) {  // (steps after the end's in its interval are not read)
            if (AFFINE) s = seen - 1;
            over = false;
            break;
        }
        if (over) break;
    }
    if (over) {  // gave up
        if (rank == 0 && tid == 0) {
            out[0] = -1;
            out[1] = out[2] = out[3] = 0;
        }
        return;
    }
    if (rank == 0 && tid == 0) {
        out[0] = BI ? int(stop >> 1) : s;
        out[1] = m;
        out[2] = 0;
        out[3] = 0;
    }
    if (!KEEP) return;
    const KeptPool kept{keep, bases, reach, max_steps, n, m, false};
    const int room = (BI ? 2 * ring_size + 2 : ring_size + 2 * gap_ring) * stride + hint_ints;  // the rings, hints
    if (AFFINE) {
        if (rank != 0) return;
        // the walk back from the end by block 0, its kept values seen after the last cluster barrier
        // (wfa_common.cuh's walk_back: thread 0 walks, the block copies windows of the kept values into the room
        // of its rings and hints: 10^6 1% linear CIGAR kernel 31.3 -> 27.4 ms, gap-affine 103.4 -> 99.3 on an
        // H100, where one thread walked straight from the pool, three dependent global loads an operation;
        // walk_at in CONTROL's last 3 ints)
        Runs w{runs + dp[6], 0, 4u, 0u};
        int k = k_end;
        __syncthreads();  // (every thread has read found[1] before thread 0 writes the walk's anchor over it)
        walk_back<AFFINE>(w, kept, smem + 1, ring, room, walk_steps, ring_size, x, e, oe, s, k, m);
        if (tid == 0) out[3] = w.close();
        return;
    }
    // BiWFA: the breakpoint (its lowest diagonal + koff into every block, then its forward score from that
    // diagonal's thread into blocks 0 and 1), every block at both barriers
    const int best = int(stop >> 1);
    const int kk = int(where >> 32);
    if (least == best) {
        for (int q = 0; q < C; ++q) min_remote(tail, unsigned(q), kk);
    }
    cluster_sync();
    if (least == best && kk == tail[0]) {  // (one thread: the diagonal's)
        store_remote(tail + 1, 0, int(unsigned(where)));
        store_remote(tail + 1, 1, int(unsigned(where)));
    }
    cluster_sync();
    const long long rmax = 2LL * max_steps + 4;  // runs of one direction at most
    unsigned* const joined = runs + dp[6];
    unsigned* const fruns = joined + 2 * rmax;  // the forward walk's runs, then the reverse's
    unsigned* const rruns = fruns + rmax;
    if (rank < 2) {  // block 0 walks the forward back, block 1 the reverse, at the same time
        const bool rev = rank == 1;
        const int k = tail[0] - koff, f = tail[1];
        int bf = k;  // (thread 0) the forward run's first cell on k: f from the start, exactly best - f to the end
        if (tid == 0 && f > 0) {
            const int lim = n + k;
            int g = kept(0, f - x, k) + 1;
            g = g <= m && g <= lim ? g : WFA_NULL;
            const int ins = valid_h(kept(0, f - e, k - 1) + 1, m), del = valid_v(kept(0, f - e, k + 1), lim);
            bf = max(g, max(ins, del));
        }
        Runs w{rev ? rruns : fruns, 0, 4u, 0u};
        int h = rev ? m - bf : bf;
        walk_windows<1>(kept, int(rev), smem + 1, ring, room, walk_steps, d + 1, rev ? best - f : f,
                        rev ? k_end - k : k, [&](auto& at, int& ws, int& wk) {
                            auto one = [&](int st, int diag, bool& miss) { return at(0, st, diag, miss); };
                            return walk_linear(w, one, x, e, ws, wk, h);
                        });
        if (tid == 0) {
            const int count = w.close();
            if (rev) {
                store_remote(tail + 2, 0, count);
            } else {
                tail[3] = count;
            }
        }
    }
    cluster_sync();
    if (rank != 0) return;
    const int total = join_runs(joined, fruns, tail[3], rruns, tail[2]);  // (runs[0..])
    if (tid == 0) out[3] = total;
}

#ifndef WFA_CLUSTER_EMU
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define CLUSTER_DIMS __cluster_dims__(WFA_CLUSTER, 1, 1)
#else
#define CLUSTER_DIMS  // (sm_80 builds: a body that traps; the host never launches it there)
#endif
// (one block a multiprocessor by design: with the 1 ptxas gives it up to 64 registers, where without it the
// alignment's variant spilled at 32)
template <bool AFFINE, bool KEEP>
__global__ void CLUSTER_DIMS __launch_bounds__(WFA_MAX_THREADS, 1) nw_wfa_cluster(
    const u64* __restrict__ seqs, const long long* __restrict__ desc, const int* __restrict__ reach, int x, int o,
    int e, int max_steps, int ring_size, int gap_ring, int stride, int koff, int per, int walk_steps,
    int* __restrict__ keep, long long pool_ints, long long* __restrict__ bases, unsigned* __restrict__ runs,
    int* __restrict__ out) {
    extern __shared__ int smem[];
    wfa_cluster_body<AFFINE, KEEP>(smem, seqs, desc, reach, x, o, e, max_steps, ring_size, gap_ring, stride, koff,
                                   per, walk_steps, keep, pool_ints, bases, runs, out);
}
#endif

#if !defined(__CUDACC_RTC__) && !defined(WFA_CLUSTER_EMU)
// nvcc builds instantiate the shipped variants (wfa_cluster.NAMES); NVRTC only the one a launch asks for.
#define NW_WFA_CLUSTER(AFFINE, KEEP)                                                                              \
    template __global__ void nw_wfa_cluster<AFFINE, KEEP>(const u64*, const long long*, const int*, int, int, int,  \
                                                          int, int, int, int, int, int, int, int*, long long,       \
                                                          long long*, unsigned*, int*);
NW_WFA_CLUSTER(false, false)
NW_WFA_CLUSTER(false, true)
NW_WFA_CLUSTER(true, false)
NW_WFA_CLUSTER(true, true)
#endif
