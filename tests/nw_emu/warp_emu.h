// A warp of the host builds of wfa.cu and wfa_cluster.cu: fiber f (emu::thread_index.x, tests/cuda_emu.h)
// is lane f % 32 of warp f / 32. The lanes exchange values through warp_slots (one per fiber) between two
// waits on the warp's barrier (read after every lane wrote, written again only after every lane read).
#pragma once
#include <algorithm>
#include <vector>

#include "../cuda_emu.h"

static std::vector<emu::Barrier> warp_barriers;
static std::vector<unsigned long long> warp_slots;

// The warps of a run of `fibers` fibers (a last warp of fewer than 32 lanes waits for those it has).
static void warps_for(int fibers) {
    warp_barriers.clear();
    for (int w = 0; w < (fibers + 31) / 32; ++w) warp_barriers.push_back(emu::Barrier{std::min(32, fibers - 32 * w)});
    warp_slots.assign(size_t(fibers), 0);
}
static unsigned long long exchange(unsigned long long value, int from) {  // lane `from`'s value, for every lane
    const unsigned f = emu::thread_index.x, w = f / 32;
    warp_slots[f] = value;
    emu::wait(warp_barriers[w]);
    const unsigned long long got = warp_slots[32 * w + unsigned(from)];
    emu::wait(warp_barriers[w]);
    return got;
}
static unsigned __ballot_sync(unsigned, int predicate) {
    const unsigned f = emu::thread_index.x, w = f / 32;
    warp_slots[f] = predicate != 0;
    emu::wait(warp_barriers[w]);
    unsigned bits = 0;
    for (unsigned l = 0; l < 32; ++l) bits |= unsigned(warp_slots[32 * w + l]) << l;
    emu::wait(warp_barriers[w]);
    return bits;
}
static int __shfl_sync(unsigned, int value, int from) {
    return int(unsigned(exchange(static_cast<unsigned long long>(static_cast<unsigned>(value)), from)));
}
static unsigned __shfl_sync(unsigned, unsigned value, int from) { return unsigned(exchange(value, from)); }
static long long __shfl_xor_sync(unsigned, long long value, int lanes) {  // (the lane `lanes` bits away)
    const int from = int((emu::thread_index.x & 31u) ^ unsigned(lanes));
    return static_cast<long long>(exchange(static_cast<unsigned long long>(value), from));
}
static int __ffs(int v) { return __builtin_ffs(v); }
static int __clz(int v) { return v == 0 ? 32 : __builtin_clz(unsigned(v)); }
static unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
    return unsigned(((static_cast<unsigned long long>(hi) << 32) | lo) >> (shift & 31));
}
