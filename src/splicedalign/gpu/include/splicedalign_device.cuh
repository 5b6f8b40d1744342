// Device helpers and limits shared by the workloads' kernels (included through the -I path
// that splicedalign.gpu.device gives NVRTC and that the nvcc builds pass too).
#pragma once

// Limits every kernel shares.
// A wait on another warp's or block's flag gives up after WAIT_LIMIT_CYCLES (2^34 cycles:
// seconds at any sm_80/sm_90 clock, orders of magnitude beyond the longest dependent chain a
// host forms, short enough that a broken hand-off ends the launch): the kernel sets its error
// word, the host raises.
constexpr long long WAIT_LIMIT_CYCLES = 1LL << 34;

// DPX on sm_90: one instruction each; the fallbacks compute the same value.
__device__ __forceinline__ int addmax(int a, int b, int c) {
#if __CUDA_ARCH__ >= 900
    return __viaddmax_s32(a, b, c);
#else
    return max(a + b, c);
#endif
}

__device__ __forceinline__ long long addmax(long long a, long long b, long long c) { return max(a + b, c); }

__device__ __forceinline__ int addmin(int a, int b, int c) {
#if __CUDA_ARCH__ >= 900
    return __viaddmin_s32(a, b, c);
#else
    return min(a + b, c);
#endif
}

// Byte permute of (lo, hi) by selector `sel` (PRMT): a profile lookup in one instruction.
__device__ __forceinline__ int prmt(unsigned lo, unsigned hi, unsigned sel) {
    int r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(sel));
    return r;
}

// Flags between warps of one launch: the producer's release store orders its earlier writes
// before the flag; the consumer's acquire load orders its later reads after it.
__device__ __forceinline__ int load_acquire(const int* p) {
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_release(int* p, int v) {
    asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
