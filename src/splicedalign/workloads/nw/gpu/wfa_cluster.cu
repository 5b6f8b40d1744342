// The forward wavefront algorithm (WFA) of ONE long pair on a thread-block cluster (sm_90): linear or
// gap-affine costs, global mode, for pairs whose letters do not fit one block's shared memory (10^6 x
// 10^6). The definitions, ranges and sources are nw_wfa's (wfa.cu): diagonal k = h - v, offsets h
// (letters of b consumed), hi(s) = min(reach[s], m), lo(s) = max(-reach[s], -n). Linear (gap-open 0):
// M[s][k] from M[s - x][k] + 1, M[s - e][k - 1] + 1 and M[s - e][k + 1], then the run of matches.
// Gap-affine (AFFINE, WFA2's three components): I[s][k] from M[s - o - e][k - 1] + 1 and I[s - e][k - 1]
// + 1, D[s][k] from M[s - o - e][k + 1] and D[s - e][k + 1], M[s][k] the most of M[s - x][k] + 1, I[s][k],
// D[s][k], then the run of matches.
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
// The letters stay in global memory (4 bits each, packed by wfa.cu's nw_wfa_pack), read through
// the read-only path (L1): each thread's diagonals move a letter or two a step, so their lines stay
// in its multiprocessor's L1 between steps. Extension: nw_wfa's (8 letters a lane, then the whole
// warp 256 letters a round for a lane whose 8 all matched).
//
// With KEEP every step's M (and I, D) is stored in `keep` (step s's diagonals lo(s)..hi(s) from
// bases[s], M then I then D, bases written by the cluster's first thread); after the last barrier
// block 0 walks back from the end (wfa_common.cuh's walk_back, nw_wfa's: its thread 0 through walk_wfa
// (M, and I and D) in windows of the kept values that the block copies into its shared memory), writing
// runs (length << 2 | op) from the end backwards, the format batch.cu's nw_band_text reads.

#include "splicedalign_device.cuh"
#ifndef __CUDACC_RTC__
#include "wfa_cluster.defines.h"
#endif
#include "wfa_common.cuh"

namespace {

constexpr int GROUP = WFA_GROUP_INTS;  // ints of a group's ring row: its 32 diagonals and a halo on either side
constexpr int CONTROL = WFA_CONTROL_INTS;  // ints before the ring: the end's flag, the walk's anchor (3 ints)

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

// `value` into block `rank`'s shared memory at the place `local` has in this block's.
__device__ __forceinline__ void store_remote(int* local, unsigned rank, int value) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    const unsigned at = unsigned(__cvta_generic_to_shared(local));
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(at), "r"(rank));
    asm volatile("st.shared::cluster.s32 [%0], %1;" ::"r"(remote), "r"(value) : "memory");
#else
    __trap();
#endif
}
#endif

// 8 letters from position `pos` of a packed sequence (32-bit words of 8 letters: one funnel shift),
// through the read-only path.
__device__ __forceinline__ unsigned window8(const u64* s, int pos) {
    const unsigned* w = reinterpret_cast<const unsigned*>(s);
    const int at = pos >> 3;
    return __funnelshift_r(__ldg(w + at), __ldg(w + at + 1), (pos & 7) * 4);
}

// The diagonals of score s (global mode): reach[s] clamped to the pair; none outside 0..last.
__device__ __forceinline__ Range range_at(const int* __restrict__ reach, int s, int last, int n, int m) {
    const int r = s < 0 || s > last ? -1 : __ldg(reach + s);
    return r < 0 ? Range{1, 0} : Range{max(-r, -n), min(r, m)};
}

}  // namespace

// One pair (desc: wfa.py's descriptor; its a, b, n, m, runs), WFA_CLUSTER blocks of `threads` (a
// multiple of 32). smem: CONTROL ints, ring_size rows of M then gap_ring rows of I and of D (AFFINE),
// each of `stride` ints (GROUP a local group), an int a local group (the extension's hint).
// koff = min(reach_max, n): group G holds k = 32 G - koff .. + 31. out: steps (-1: gave up past
// max_steps or the pool), end column of b, start column of b (0), runs.
// `per` steps (at most e) between two cluster barriers: step s reads its neighbours' diagonals at
// s - e (M linear; I, D affine) and s - o - e (M affine) only, written before the interval's barrier,
// and its own at s - x (the same thread); a thread may then be `per` - 1 steps ahead of another, so
// ring_size >= max(x + 1, o + e + per) and gap_ring >= e + per.
template <bool AFFINE, bool KEEP>
__device__ void wfa_cluster_body(int* smem, const u64* __restrict__ seqs, const long long* __restrict__ desc,
                                 const int* __restrict__ reach, int x, int o, int e, int max_steps, int ring_size,
                                 int gap_ring, int stride, int koff, int per, int walk_steps,
                                 int* __restrict__ keep, long long pool_ints, long long* __restrict__ bases,
                                 unsigned* __restrict__ runs, int* __restrict__ out) {
    constexpr int ARRAYS = AFFINE ? 3 : 1;
    const int tid = threadIdx.x, threads = blockDim.x, lane = tid & 31, warp = tid >> 5, warps = threads >> 5;
    const unsigned rank = cluster_rank();
    constexpr int C = WFA_CLUSTER;
    const long long* dp = desc;
    const int n = int(dp[2]), m = int(dp[3]);
    const u64* a = seqs + dp[0];
    const u64* b = seqs + dp[1];
    int* const ring = smem + CONTROL;
    int* const gaps = ring + ring_size * stride;  // I's gap_ring rows, then D's (AFFINE)
    const int d_rows = gap_ring * stride;
    int* const hints = gaps + 2 * d_rows;  // per local group: its lane whose first 8 letters matched last step
    for (int j = tid; j < stride / GROUP; j += threads) hints[j] = -1;
    volatile int* const found = smem;  // 1 once the end is reached (stored by the end's thread in every block)
    if (tid == 0) *found = 0;
    cluster_sync();  // (every block started and cleared its flag before any store into it)
    const int k_end = m - n;
    bool over = false;
    long long base = 0;  // the step's first int in the pool (KEEP)
    int slot = 0;  // s % ring_size
    int gslot = 0;  // s % gap_ring (AFFINE)
    const int oe = o + e;
    int s = 0;
    bool ended = false;  // (the end's thread) found it already
    while (true) {  // `per` steps between two cluster barriers
        for (int sub = 0; sub < per; ++sub, ++s) {
            const Range cur = range_at(reach, s, max_steps, n, m);
            const int width = cur.hi - cur.lo + 1;
            if (s > max_steps || (KEEP && base + ARRAYS * width > pool_ints)) {  // the same for every thread
                over = true;
                break;
            }
            if (KEEP && rank == 0 && tid == 0) bases[s] = base;
            const Range rx = range_at(reach, s - x, max_steps, n, m), re = range_at(reach, s - e, max_steps, n, m);
            const Range ro = AFFINE ? range_at(reach, s - oe, max_steps, n, m) : Range{1, 0};
            const int xs = slot - x, es = slot - e, os = slot - oe, ges = gslot - e;
            int* const out_m = ring + slot * stride;
            const int* const src_x = ring + (xs < 0 ? xs + ring_size : xs) * stride;
            const int* const src_e = ring + (es < 0 ? es + ring_size : es) * stride;  // M at s - e (linear)
            const int* const src_o = ring + (os < 0 ? os + ring_size : os) * stride;  // M at s - o - e (affine)
            int* const out_i = gaps + gslot * stride;
            int* const out_d = out_i + d_rows;
            const int* const src_i = gaps + (ges < 0 ? ges + gap_ring : ges) * stride;  // I at s - e (affine)
            const int* const src_d = src_i + d_rows;
            // this block's groups of the step: G = rank + C j, G from (lo + koff) / 32 to (hi + koff) / 32
            const int g_lo = (cur.lo + koff) >> 5, g_hi = (cur.hi + koff) >> 5;
            const int j_first = g_lo <= int(rank) ? 0 : (g_lo - int(rank) + C - 1) / C;
            // warp w takes local groups j = w, w + warps, ... (the same diagonals every step)
            const int j_start = j_first + ((warp - j_first) % warps + warps) % warps;
            for (int j = j_start; int(rank) + C * j <= g_hi; j += warps) {
                const int g = int(rank) + C * j;
                const int k = 32 * g - koff + lane;
                const int at = GROUP * j + lane + 1;  // k's place in a ring row
                const bool on = cur.has(k);
                int mv = WFA_NULL, iv = WFA_NULL, dv = WFA_NULL;
                if (on) {
                    if (s == 0) {
                        mv = k;  // (k = 0: global mode starts at the origin)
                    } else {
                        const int lim = n + k;  // offsets past it leave the table (v > n)
                        int gx = rx.has(k) ? src_x[at] + 1 : WFA_NULL;
                        gx = gx <= min(m, lim) ? gx : WFA_NULL;
                        if (AFFINE) {  // (nw_wfa's sources: a NULL source plus one stays below 0)
                            const int g1 = ro.has(k - 1) ? src_o[at - 1] + 1 : WFA_NULL;
                            const int g2 = re.has(k - 1) ? src_i[at - 1] + 1 : WFA_NULL;
                            const int d1 = ro.has(k + 1) ? src_o[at + 1] : WFA_NULL;
                            const int d2 = re.has(k + 1) ? src_d[at + 1] : WFA_NULL;
                            iv = max(g1, g2);
                            iv = iv <= m && iv >= 0 ? iv : WFA_NULL;
                            dv = max(d1, d2);
                            dv = dv <= lim && dv >= 0 ? dv : WFA_NULL;
                            mv = max(gx, max(iv, dv));
                        } else {
                            int gi = re.has(k - 1) ? src_e[at - 1] + 1 : WFA_NULL;
                            gi = gi <= m ? gi : WFA_NULL;
                            int gd = re.has(k + 1) ? src_e[at + 1] : WFA_NULL;
                            gd = gd <= lim ? gd : WFA_NULL;
                            mv = max(gx, max(gi, gd));
                        }
                    }
                }
                const int kc = min(max(k, cur.lo), cur.hi);  // a lane outside the range probes inside both sequences
                const int start = mv >= 0 ? mv : max(kc, 0);
                // the lane whose first 8 letters matched last step (the optimal path's diagonal, ~70 letters a
                // step at 10^6 1%): its first 256 letters compared by the warp beside every lane's 8-letter probe,
                // their loads in one round trip, where the probe and then the warp extension took two
                // (lane 0's read, after its own write of the last step: the warp's lanes may be a step apart)
                const int cand = __shfl_sync(FULL_WARP, hints[j], 0), from_c = cand & 31;
                const int hc = __shfl_sync(FULL_WARP, start, from_c), kcd = __shfl_sync(FULL_WARP, k, from_c);
                const bool fused = cand >= 0 && __shfl_sync(FULL_WARP, mv, from_c) >= 0;  // (the same for the warp)
                unsigned xc = 0;
                if (fused) xc = window8(a, min(hc - kcd + 8 * lane, n)) ^ window8(b, min(hc + 8 * lane, m));
                bool more;
                int h = probe8(a, b, start, kc, more);
                const unsigned ran = __ballot_sync(FULL_WARP, mv >= 0 && more);
                if (lane == 0) hints[j] = ran ? __ffs(int(ran)) - 1 : -1;
                unsigned longer = ran;
                if (fused) {
                    const unsigned differ = __ballot_sync(FULL_WARP, xc != 0);
                    int got;
                    if (differ) {
                        const int first = __ffs(int(differ)) - 1;
                        got = hc + 8 * first + ((__ffs(int(__shfl_sync(FULL_WARP, xc, first))) - 1) >> 2);
                    } else {
                        got = extend_warp(a, b, hc + 256, kcd, lane, n, m);
                    }
                    if (lane == from_c) h = got;
                    longer &= ~(1u << from_c);
                }
                for (; longer; longer &= longer - 1) {
                    const int from = __ffs(int(longer)) - 1;
                    const int got = extend_warp(a, b, __shfl_sync(FULL_WARP, h, from),
                                                __shfl_sync(FULL_WARP, k, from), lane, n, m);
                    if (lane == from) h = got;
                }
                if (on) {
                    const int v = mv >= 0 ? h : WFA_NULL;
                    out_m[at] = v;
                    if (AFFINE) {
                        out_i[at] = iv;
                        out_d[at] = dv;
                    }
                    if (KEEP) {
                        int* const row = keep + base + (k - cur.lo);
                        row[0] = v;
                        if (AFFINE) {
                            row[width] = iv;
                            row[2 * width] = dv;
                        }
                    }
                    // the group's edges into the neighbouring groups' halos (their blocks' rings): M both
                    // ways, D to the left (read at k + 1), I to the right (read at k - 1)
                    if (lane == 0 && g > 0) {
                        const int gl = g - 1, to = GROUP * (gl / C) + GROUP - 1;
                        store_remote(out_m + to, unsigned(gl % C), v);
                        if (AFFINE) store_remote(out_d + to, unsigned(gl % C), dv);
                    }
                    if (lane == 31) {
                        const int gr = g + 1, to = GROUP * (gr / C);
                        store_remote(out_m + to, unsigned(gr % C), v);
                        if (AFFINE) store_remote(out_i + to, unsigned(gr % C), iv);
                    }
                    if (k == k_end && v == m && !ended) {  // the end: its step + 1 into every block
                        ended = true;
                        for (int q = 0; q < C; ++q) store_remote(const_cast<int*>(found), unsigned(q), s + 1);
                    }
                }
            }
            if (KEEP) base += ARRAYS * width;
            slot = slot + 1 == ring_size ? 0 : slot + 1;
            if (AFFINE) gslot = gslot + 1 == gap_ring ? 0 : gslot + 1;
        }
        cluster_sync();
        if (*found) {  // (steps after the end's in its interval are not read)
            s = *found - 1;
            over = false;
            break;
        }
        if (over) break;
    }
    if (rank != 0 || (tid != 0 && (!KEEP || over))) return;  // (block 0's threads walk, thread 0 answers)
    if (over) {  // gave up
        out[0] = -1;
        out[1] = out[2] = out[3] = 0;
        return;
    }
    if (tid == 0) {
        out[0] = s;
        out[1] = m;
        out[2] = 0;
        out[3] = 0;
    }
    if (!KEEP) return;
    // the walk back from the end by block 0, its kept values seen after the last cluster barrier
    // (wfa_common.cuh's walk_back: thread 0 walks, the block copies windows of the kept values into the room
    // of its rings and hints: 10^6 1% linear CIGAR kernel 31.3 -> 27.4 ms, gap-affine 103.4 -> 99.3 on an
    // H100, where one thread walked straight from the pool, three dependent global loads an operation;
    // walk_at in CONTROL's padding)
    Runs w{runs + dp[6], 0, 4u, 0u};
    int k = k_end;
    const KeptPool kept{keep, bases, reach, max_steps, n, m, false};
    walk_back<AFFINE>(w, kept, smem + 1, ring, (ring_size + 2 * gap_ring) * stride + stride / GROUP, walk_steps,
                      ring_size, x, e, oe, s, k, m);
    if (tid == 0) out[3] = w.close();
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
