// Host (g++, C++20) build of the `primer-paper` kernel for tests without a GPU: each CUDA
// thread of a block is a std::thread and __syncthreads is a std::barrier; blocks run in turn.
// Reads "m n k threads" then alpha and beta codes (one byte each) on stdin and prints the
// prefix of every start 0 .. m - k, space-separated.
#include <barrier>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

#ifndef PP_THREADS
#define PP_THREADS 32  // small tiles so tests cross many tile boundaries
#endif
#include "../cuda_emu.h"
static thread_local dim3 threadIdx;
static dim3 blockIdx;
static std::barrier<>* block_barrier;
static void __syncthreads() { block_barrier->arrive_and_wait(); }
using std::max;
using std::min;
int smem[1 << 20];
#include "../../src/splicedalign/workloads/primer/gpu/paper.cu"

int main() {
    int m, n, k;
    if (std::scanf("%d %d %d ", &m, &n, &k) != 3) return 1;
    std::vector<unsigned char> a(m), b(n);
    if (std::fread(a.data(), 1, m, stdin) != (size_t)m || std::fread(b.data(), 1, n, stdin) != (size_t)n) return 1;
    const int count = m - k + 1;
    std::vector<int> prefix(count, -9);
    unsigned long long comps = 0;
    std::barrier<> bar(PP_THREADS);
    block_barrier = &bar;
    for (int s = 0; s < count; ++s) {
        blockIdx = {(unsigned int)s, 0, 0};
        std::vector<std::thread> threads;
        for (unsigned int x = 0; x < PP_THREADS; ++x)
            threads.emplace_back([&, x] {
                threadIdx = {x, 0, 0};
                primer_paper(a.data(), m, b.data(), n, k, 0, prefix.data() - 0, &comps);
            });
        for (auto& t : threads) t.join();
    }
    for (int s = 0; s < count; ++s) std::printf("%d ", prefix[s]);
    std::printf("\n%llu\n", comps);
    return 0;
}
