// Host (g++, C++20) build of wfa.cu's kernels for tests without a GPU, as a shared library the
// test drives through ctypes in place of the device (tests/test_nw_gpu_wfa_model.py): a block's
// CUDA threads are fibers (emu::run_block, tests/cuda_emu.h), __syncthreads the block's
// emu::Barrier, a shuffle or ballot its warp's; blocks run in turn.
// The kernel's defines come as -D flags (as NVRTC gets them).
#include <algorithm>
#include <atomic>
#include <vector>

#include "../cuda_emu.h"
#include "warp_emu.h"
static const dim3& threadIdx = emu::thread_index;
static dim3 blockIdx, blockDim, gridDim;
static emu::Barrier block_barrier;
static void __syncthreads() { emu::wait(block_barrier); }
// __syncthreads_or: call c's votes in votes[c % 3]; thread 0 clears the slot of call c + 2 once
// every thread has read call c - 1's (they all passed call c's barrier)
static std::atomic<int> votes[3];
static unsigned vote_calls[1024];  // each thread's calls so far in this block
static int __syncthreads_or(int predicate) {
    const unsigned c = vote_calls[threadIdx.x]++ % 3;
    if (predicate) votes[c].fetch_or(1);
    emu::wait(block_barrier);
    const int any = votes[c].load();
    if (threadIdx.x == 0) votes[(c + 2) % 3].store(0);
    return any;
}
static int __reduce_max_sync(unsigned, int value) {
    const int t = int(threadIdx.x), w = t / 32;
    warp_slots[t] = static_cast<unsigned long long>(static_cast<unsigned>(value));
    emu::wait(warp_barriers[w]);
    int most = value;
    for (int l = 0; l < 32; ++l) most = std::max(most, int(static_cast<unsigned>(warp_slots[32 * w + l])));
    emu::wait(warp_barriers[w]);
    return most;
}
static int atomicMax(int* p, int v) {
    int old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
static int __ffsll(long long v) { return __builtin_ffsll(v); }
static unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    unsigned long long old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
using std::max;
using std::min;
alignas(16) int smem[1 << 20];  // the host build's shared memory (4 MiB)
#include "../../src/splicedalign/workloads/nw/gpu/wfa.cu"

template <class F>
static void run_blocks(int blocks, int threads, F body) {
    block_barrier = emu::Barrier{threads};
    warps_for(threads);
    blockDim = {(unsigned int)threads, 1, 1};
    gridDim = {(unsigned int)blocks, 1, 1};
    for (int blk = 0; blk < blocks; ++blk) {
        blockIdx = {(unsigned int)blk, 0, 0};
        for (auto& v : votes) v.store(0);
        std::fill(vote_calls, vote_calls + threads, 0u);
        emu::run_block(threads, body);
    }
}

template <bool AFFINE, bool KEEP, bool SHARED, bool BYTES>
static void nw_wfa_call(const u64* seqs, const long long* desc, const int* reach, int mode, int x, int o, int e,
                        int max_steps, int ring_size, int stride, int reach_max, int ring_shared, int seqs_shared,
                        int walk_steps, int* ring_global, int* keep, unsigned long long* pool_top, long long pool_ints,
                        long long* bases, unsigned* runs, int* out, int gap_start) {
    nw_wfa<AFFINE, KEEP, SHARED, BYTES>(seqs, desc, reach, mode, x, o, e, max_steps, ring_size, stride, reach_max,
                                        ring_shared, seqs_shared, walk_steps, ring_global, keep, pool_top, pool_ints,
                                        bases, runs, out, gap_start);
}

extern "C" int emu_nw_wfa(int affine, int keep_on, int shared, int bytes, int blocks, int threads, const u64* seqs,
                          const long long* desc, const int* reach, int mode, int x, int o, int e, int max_steps,
                          int ring_size, int stride, int reach_max, int ring_shared, int seqs_shared,
                          int walk_steps, int* ring_global, int* keep, unsigned long long* pool_top, long long pool_ints,
                          long long* bases, unsigned* runs, int* out, int gap_start) {
    // the shipped instances (wfa.NAMES), indexed affine * 8 + keep * 4 + shared * 2 + bytes (BYTES: keep only)
    using Call = void (*)(const u64*, const long long*, const int*, int, int, int, int, int, int, int, int, int, int, int,
                          int*, int*, unsigned long long*, long long, long long*, unsigned*, int*, int);
    static const Call calls[16] = {
        nw_wfa_call<false, false, false, false>, nullptr, nw_wfa_call<false, false, true, false>, nullptr,
        nw_wfa_call<false, true, false, false>,  nw_wfa_call<false, true, false, true>,
        nw_wfa_call<false, true, true, false>,   nw_wfa_call<false, true, true, true>,
        nw_wfa_call<true, false, false, false>,  nullptr, nw_wfa_call<true, false, true, false>, nullptr,
        nw_wfa_call<true, true, false, false>,   nw_wfa_call<true, true, false, true>,
        nw_wfa_call<true, true, true, false>,    nw_wfa_call<true, true, true, true>};
    const Call call = calls[(affine ? 8 : 0) + (keep_on ? 4 : 0) + (shared ? 2 : 0) + (bytes ? 1 : 0)];
    if (call == nullptr) return 1;  // (no such instance ships)
    run_blocks(blocks, threads, [&] {
        call(seqs, desc, reach, mode, x, o, e, max_steps, ring_size, stride, reach_max, ring_shared, seqs_shared,
             walk_steps, ring_global, keep, pool_top, pool_ints, bases, runs, out, gap_start);
    });
    return 0;
}

extern "C" int emu_nw_biwfa(int keep_on, int threads, const u64* seqs, const long long* desc, const int* reach,
                            int x, int e, int max_steps, int ring_size, int stride, int reach_max, int walk_steps,
                            int* keep,
                            unsigned long long* pool_top, long long pool_ints, long long* bases, unsigned* runs,
                            int* out) {
    run_blocks(1, threads, [&] {
        if (keep_on) {
            nw_biwfa<true>(seqs, desc, reach, x, e, max_steps, ring_size, stride, reach_max, walk_steps, keep, pool_top,
                           pool_ints, bases, runs, out);
        } else {
            nw_biwfa<false>(seqs, desc, reach, x, e, max_steps, ring_size, stride, reach_max, walk_steps, keep,
                            pool_top, pool_ints, bases, runs, out);
        }
    });
    return 0;
}

extern "C" void emu_nw_wfa_pack(int blocks, const unsigned char* bytes, const long long* from, const long long* size,
                                const long long* to, const long long* words, const unsigned char* pad, int* bad,
                                const unsigned char* table, u64* packed) {
    run_blocks(blocks, 4, [&] { nw_wfa_pack(bytes, from, size, to, words, pad, bad, table, packed); });
}

extern "C" void emu_nw_pieces_settle(int threads, const int* out, const unsigned* runs, long long runs_each,
                                     const long long* from, long long n_pair, int count, int spec, int g, int affine,
                                     int whole, int m, long long bound, long long* result) {
    run_blocks(1, threads, [&] {
        nw_pieces_settle(out, runs, runs_each, from, n_pair, count, spec, g, affine, whole, m, bound, result);
    });
}

extern "C" int emu_nw_wfa_round(int affine, int shared, int blocks, int threads, const u64* seqs, const int* reach,
                                int x, int o, int e, int max_steps, int ring_size, int stride, int reach_max,
                                int walk_steps, int* ring_global, int* keep, unsigned long long* pool_top,
                                long long pool_ints, long long* bases, unsigned* runs, int* out, long long n_pair,
                                int m_pair, int count, int spec, int lo, int hi, int pool_steps, long long runs_each,
                                long long* from, unsigned long long* done, int g, int whole, long long bound,
                                long long* result, int* mirror) {
    using Call = void (*)(const u64*, const int*, int, int, int, int, int, int, int, int, int*, int*,
                          unsigned long long*, long long, long long*, unsigned*, int*, long long, int, int, int, int,
                          int, int, long long, long long*, unsigned long long*, int, int, long long, long long*, int*);
    static const Call calls[4] = {nw_wfa_round<false, false>, nw_wfa_round<false, true>, nw_wfa_round<true, false>,
                                  nw_wfa_round<true, true>};
    const Call call = calls[(affine ? 2 : 0) + (shared ? 1 : 0)];
    run_blocks(blocks, threads, [&] {
        call(seqs, reach, x, o, e, max_steps, ring_size, stride, reach_max, walk_steps, ring_global, keep, pool_top,
             pool_ints, bases, runs, out, n_pair, m_pair, count, spec, lo, hi, pool_steps, runs_each, from, done, g,
             whole, bound, result, mirror);
    });
    return 0;
}
