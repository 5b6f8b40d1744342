// Host (g++, C++20) build of wfa_cluster.cu's kernel for tests without a GPU (tests/
// test_nw_gpu_wfa_cluster_model.py): the cluster's blocks run together as one set of fibers
// (emu::run_block, tests/cuda_emu.h; fiber f is thread f % threads of block f / threads), the
// cluster barrier a wait of all of them, a shuffle or ballot its warp's; each block has its own
// shared memory, and a store into another block's (distributed shared memory) lands at the same
// place in that block's. The kernel's defines come as -D flags (as NVRTC gets them). A late block
// (emu_wfa_cluster_late) has its threads go on after each cluster barrier only once every other block
// has run its next interval up to the next barrier (or ended): the most a block can run ahead.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "../cuda_emu.h"
#include "warp_emu.h"
#define WFA_CLUSTER_EMU
static unsigned block_threads = 32;
static dim3 blockDim;
static dim3 fiber_thread() { return dim3{emu::thread_index.x % block_threads, 0, 0}; }
#define threadIdx (fiber_thread())
static unsigned fiber_block() { return emu::thread_index.x / block_threads; }

static emu::Barrier cluster_barrier;
static std::vector<emu::Barrier> block_barriers;  // each block's __syncthreads (block 0's walk)
static void __syncthreads() { emu::wait(block_barriers[fiber_block()]); }
static std::vector<int> shared;  // the blocks' shared memory, one after another
static size_t shared_ints = 0;  // a block's

static int late_block = -1;  // (none)
static emu::Barrier gate;  // passes once every late thread has passed barrier i and every other one barrier i + 1
static std::vector<char> synced;  // a fiber's: passed a cluster barrier
static void ahead_done() {  // (another block's thread) its interval after the last barrier run
    if (late_block >= 0 && int(fiber_block()) != late_block && synced[emu::thread_index.x]) emu::arrive(gate);
}

static unsigned cluster_rank() { return fiber_block(); }
static void cluster_sync() {
    ahead_done();
    emu::wait(cluster_barrier);
    synced[emu::thread_index.x] = 1;
    if (int(fiber_block()) == late_block) emu::wait(gate);
}
static int& remote(int* local, unsigned rank) {  // the place `local` has in this block's, in block `rank`'s
    return shared[rank * shared_ints + size_t(local - shared.data()) % shared_ints];
}
static void store_remote(int* local, unsigned rank, int value) { remote(local, rank) = value; }
static void min_remote(int* local, unsigned rank, int value) {  // (the fibers run one at a time)
    remote(local, rank) = std::min(remote(local, rank), value);
}
using std::max;
using std::min;
#include "../../src/splicedalign/workloads/nw/gpu/wfa_cluster.cu"

// The late block of the next launches (-1: none).
extern "C" void emu_wfa_cluster_late(int block) { late_block = block; }

// One launch of WFA_CLUSTER blocks of `threads`, `smem_bytes` of shared memory each (filled with
// `poison` first, so that a read of a value never written shows); `affine` and `keep_on` pick the variant.
extern "C" int emu_nw_wfa_cluster(int affine, int keep_on, int threads, int smem_bytes, int poison,
                                  const u64* seqs, const long long* desc, const int* reach, int x, int o, int e,
                                  int max_steps, int ring_size, int gap_ring, int stride, int koff, int per,
                                  int walk_steps, int* keep, long long pool_ints, long long* bases, unsigned* runs, int* out) {
    if (threads % 32) return 1;
    block_threads = unsigned(threads);
    blockDim = {unsigned(threads), 1, 1};
    const int fibers = WFA_CLUSTER * threads;
    cluster_barrier = emu::Barrier{fibers};
    block_barriers.assign(WFA_CLUSTER, emu::Barrier{threads});
    gate = emu::Barrier{fibers};
    synced.assign(fibers, 0);
    warps_for(fibers);
    shared_ints = size_t(smem_bytes + 3) / 4;
    shared.assign(WFA_CLUSTER * shared_ints, poison);
    auto body = [&] {
        int* smem = shared.data() + fiber_block() * shared_ints;
        auto run = [&](auto affine_v, auto keep_v) {
            wfa_cluster_body<decltype(affine_v)::value, decltype(keep_v)::value>(
                smem, seqs, desc, reach, x, o, e, max_steps, ring_size, gap_ring, stride, koff, per, walk_steps, keep,
                pool_ints, bases, runs, out);
        };
        if (affine && keep_on) {
            run(std::true_type{}, std::true_type{});
        } else if (affine) {
            run(std::true_type{}, std::false_type{});
        } else if (keep_on) {
            run(std::false_type{}, std::true_type{});
        } else {
            run(std::false_type{}, std::false_type{});
        }
        ahead_done();  // (a late thread may wait on the gate after the last barrier)
    };
    emu::run_block(fibers, body);
    return 0;
}
