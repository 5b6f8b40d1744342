// Host (g++, C++20) build of the `primer-paper` kernel for tests without a GPU: a block's CUDA
// threads are fibers (emu::run_block, tests/cuda_emu.h) and __syncthreads the block's
// emu::Barrier; blocks run in turn.
// Reads "m n k threads" then alpha and beta codes (one byte each) on stdin and prints the
// prefix of every start 0 .. m - k, space-separated.
#include <cstdio>
#include <vector>

#ifndef PP_THREADS
#define PP_THREADS 32  // small tiles so tests cross many tile boundaries
#endif
#include "../cuda_emu.h"
static const dim3& threadIdx = emu::thread_index;
static dim3 blockIdx;
static emu::Barrier block_barrier;
static void __syncthreads() { emu::wait(block_barrier); }
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
    block_barrier = emu::Barrier{PP_THREADS};
    auto thread = [&] { primer_paper(a.data(), m, b.data(), n, k, 0, prefix.data() - 0, &comps); };
    for (int s = 0; s < count; ++s) {
        blockIdx = {(unsigned int)s, 0, 0};
        emu::run_block(PP_THREADS, thread);
    }
    for (int s = 0; s < count; ++s) std::printf("%d ", prefix[s]);
    std::printf("\n%llu\n", comps);
    return 0;
}
