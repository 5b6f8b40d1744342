// Host (g++) build of the `gpu` kernel's device code for tests without a GPU: each CUDA thread
// runs in turn (the kernel has no barriers). Reads "m n k" then alpha and beta codes (one byte
// each) on stdin; prints, per instance (MAXB 2 and 16 in registers, 128 local), the prefixes
// of every start 0 .. m - k, space-separated, one line each. The register instances cut beta
// into as many segments as the overlap MAXB * 64 + k - 1 allows (the host takes the maximum
// over segments, an overflow in any segment wins), the local one sweeps all of beta.
#include <algorithm>
#include <cstdio>
#include <vector>

struct uint4 { unsigned int x, y, z, w; };
#include "../cuda_emu.h"
static dim3 threadIdx, blockIdx, blockDim, gridDim;
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
using std::min;
namespace { unsigned long long shared_peq[128 * 4 * 64]; }  // PB_THREADS = 64
#include "../../src/splicedalign/workloads/primer/gpu/bitparallel.cu"

template <int MAXB, bool REG>
static void run(const std::vector<unsigned char>& a, const std::vector<uint4>& b16, int m, int n, int k) {
    const int count = m - k + 1;
    const unsigned int blocks = (count + PB_THREADS - 1) / PB_THREADS;
    const int over = REG ? MAXB * 64 + k - 1 : 0;
    const int segments = REG ? std::max(1, n / over) : 1;
    const int seg = REG ? (n + segments - 1) / segments : n;
    std::vector<int> prefix((size_t)segments * count, -9);
    std::vector<unsigned long long> scratch((size_t)blocks * PB_THREADS * 4 * MAXB);
    unsigned long long comps = 0;
    blockDim = {PB_THREADS, 1, 1};
    gridDim = {blocks, (unsigned int)segments, 1};
    for (unsigned int g = 0; g < (unsigned int)segments; ++g)
        for (unsigned int bx = 0; bx < blocks; ++bx)
            for (unsigned int tx = 0; tx < PB_THREADS; ++tx) {
                blockIdx = {bx, g, 0};
                threadIdx = {tx, 0, 0};
                bitparallel_prefixes<MAXB, REG>(a.data(), m, b16.data(), n, k, 0, count, nullptr, seg, over,
                                                prefix.data(), &comps, scratch.data());
            }
    for (int s = 0; s < count; ++s) {
        int best = -9;
        bool overflow = false;
        for (int g = 0; g < segments; ++g) {
            best = std::max(best, prefix[(size_t)g * count + s]);
            overflow = overflow || prefix[(size_t)g * count + s] == PB_OVERFLOW;
        }
        std::printf("%d ", overflow ? PB_OVERFLOW : best);
    }
    std::printf("\n");
}

int main() {
    int m, n, k;
    if (std::scanf("%d %d %d ", &m, &n, &k) != 3) return 1;
    std::vector<unsigned char> a(m), b((n + 15) / 16 * 16, 5);
    if (std::fread(a.data(), 1, m, stdin) != (size_t)m || std::fread(b.data(), 1, n, stdin) != (size_t)n) return 1;
    std::vector<uint4> b16(b.size() / 16);
    std::copy(b.begin(), b.end(), reinterpret_cast<unsigned char*>(b16.data()));
    run<2, true>(a, b16, m, n, k);
    run<16, true>(a, b16, m, n, k);
    run<128, false>(a, b16, m, n, k);
    return 0;
}
