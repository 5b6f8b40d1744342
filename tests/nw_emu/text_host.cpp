// Host (g++, C++20) build of batch.cu's nw_band_text for tests without a GPU, as a shared library
// the test drives through ctypes (tests/test_nw_gpu_batch_host.py): a warp's 32 lanes are fibers
// (emu::run_block, tests/cuda_emu.h), a shuffle is a write to a slot per lane between two waits on
// the warp's emu::Barrier; warps run in turn.
// The kernel file's defines come as -D flags (as NVRTC gets them); nw_band itself is compiled
// (its intrinsics only declared) but not run.
#include <algorithm>

#include "../cuda_emu.h"
static const dim3& threadIdx = emu::thread_index;
static dim3 blockIdx, blockDim;
static emu::Barrier warp_barrier{32};
static long long slots[32];
template <class T>
static T exchange(T mine, int from) {
    slots[threadIdx.x % 32] = (long long)mine;
    emu::wait(warp_barrier);
    const T got = (T)slots[from];
    emu::wait(warp_barrier);
    return got;
}
template <class T>
static T __shfl_sync(unsigned, T v, int src) { return exchange(v, src); }
template <class T>
static T __shfl_up_sync(unsigned, T v, int d) {
    const int lane = threadIdx.x % 32;
    return exchange(v, lane >= d ? lane - d : lane);
}
template <class T>
static T __shfl_down_sync(unsigned, T v, int d);
unsigned __vcmpeq4(unsigned, unsigned);
unsigned __funnelshift_r(unsigned, unsigned, unsigned);
int __reduce_min_sync(unsigned, int);
void __syncwarp();
using std::max;
using std::min;
#include "../../src/splicedalign/workloads/nw/gpu/batch.cu"

// nw_band_text over `pairs` pairs, `threads` threads a block (a warp a pair), as a launch would.
extern "C" void emu_nw_band_text(int pairs, int threads, const long long* desc, const unsigned* runs, const int* out,
                                 long long* at, char* text) {
    blockDim = {(unsigned int)threads, 1, 1};
    const int blocks = (pairs * 32 + threads - 1) / threads;
    auto lane = [&] { nw_band_text(desc, runs, out, pairs, at, text); };
    for (int blk = 0; blk < blocks; ++blk) {
        blockIdx = {(unsigned int)blk, 0, 0};
        for (int warp = 0; warp < threads / 32; ++warp) emu::run_block(32, lane, 32 * warp);
    }
}
