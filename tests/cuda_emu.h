// The CUDA keywords for the host (g++) builds of kernel files that tests drive without a GPU
// (tests/primer_emu, tests/nw_emu): each *_host.cpp includes this, then declares threadIdx,
// blockIdx and __syncthreads as its way of running a block's threads needs. atomicAdd is a
// real atomic (the emulators run a block's threads as std::threads).
#pragma once
struct dim3 { unsigned int x, y, z; };
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __shared__
#define __restrict__
template <class T> static inline T __ldg(const T* p) { return *p; }
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
