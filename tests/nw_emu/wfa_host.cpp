// Host (g++, C++20) build of wfa.cu's kernels for tests without a GPU, as a shared library the
// test drives through ctypes in place of the device (tests/test_nw_gpu_wfa_model.py): each CUDA
// thread of a block is a std::thread and __syncthreads a std::barrier; blocks run in turn.
// The kernel's defines come as -D flags (as NVRTC gets them).
#include <algorithm>
#include <atomic>
#include <barrier>
#include <thread>
#include <vector>

#include "../cuda_emu.h"
static thread_local dim3 threadIdx;
static dim3 blockIdx, blockDim;
static std::barrier<>* block_barrier;
static void __syncthreads() { block_barrier->arrive_and_wait(); }
// __syncthreads_or: call c's votes in votes[c % 3]; thread 0 clears the slot of call c + 2 once
// every thread has read call c - 1's (they all passed call c's barrier)
static std::atomic<int> votes[3];
static thread_local unsigned vote_calls;
static int __syncthreads_or(int predicate) {
    const unsigned c = vote_calls++ % 3;
    if (predicate) votes[c].fetch_or(1);
    block_barrier->arrive_and_wait();
    const int any = votes[c].load();
    if (threadIdx.x == 0) votes[(c + 2) % 3].store(0);
    return any;
}
static int __ffsll(long long v) { return __builtin_ffsll(v); }
static int __ffs(int v) { return __builtin_ffs(v); }
static unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
    return unsigned(((static_cast<unsigned long long>(hi) << 32) | lo) >> (shift & 31));
}
static unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    unsigned long long old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}
static unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
using std::max;
using std::min;
alignas(16) int smem[1 << 20];  // the host build's shared memory (4 MiB)
#include "../../src/splicedalign/workloads/nw/gpu/wfa.cu"

template <class F>
static void run_blocks(int blocks, int threads, F body) {
    std::barrier<> bar(threads);
    block_barrier = &bar;
    blockDim = {(unsigned int)threads, 1, 1};
    for (int blk = 0; blk < blocks; ++blk) {
        blockIdx = {(unsigned int)blk, 0, 0};
        for (auto& v : votes) v.store(0);
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                threadIdx = {(unsigned int)t, 0, 0};
                body();
            });
        for (auto& t : pool) t.join();
    }
}

extern "C" int emu_nw_wfa(int affine, int keep_on, int blocks, int threads, const u64* seqs, const long long* desc,
                          const int* reach, int mode, int x, int o, int e, int max_steps, int ring_size, int stride,
                          int reach_max, int ring_shared, int seqs_shared, int* ring_global, int* keep,
                          unsigned long long* pool_top, long long pool_ints, long long* bases, unsigned* runs,
                          int* out) {
    auto call = [&] {
        if (affine && keep_on)
            nw_wfa<true, true>(seqs, desc, reach, mode, x, o, e, max_steps, ring_size, stride, reach_max, ring_shared,
                               seqs_shared, ring_global, keep, pool_top, pool_ints, bases, runs, out);
        else if (affine)
            nw_wfa<true, false>(seqs, desc, reach, mode, x, o, e, max_steps, ring_size, stride, reach_max,
                                ring_shared, seqs_shared, ring_global, keep, pool_top, pool_ints, bases, runs, out);
        else if (keep_on)
            nw_wfa<false, true>(seqs, desc, reach, mode, x, o, e, max_steps, ring_size, stride, reach_max,
                                ring_shared, seqs_shared, ring_global, keep, pool_top, pool_ints, bases, runs, out);
        else
            nw_wfa<false, false>(seqs, desc, reach, mode, x, o, e, max_steps, ring_size, stride, reach_max,
                                 ring_shared, seqs_shared, ring_global, keep, pool_top, pool_ints, bases, runs, out);
    };
    run_blocks(blocks, threads, call);
    return 0;
}

extern "C" void emu_nw_wfa_pack(int blocks, const unsigned char* bytes, const long long* from, const long long* size,
                                const long long* to, const long long* words, const unsigned char* pad, u64* packed) {
    run_blocks(blocks, 4, [&] { nw_wfa_pack(bytes, from, size, to, words, pad, packed); });
}
