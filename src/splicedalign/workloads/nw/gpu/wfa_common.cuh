// Device code nw's two wavefront kernel files share (wfa.cu: nw_wfa, nw_biwfa; wfa_cluster.cu:
// nw_wfa_cluster): the first 8 letters of a run of matches, the warp's extension past them, a
// wavefront's diagonals and the walk's runs. Included after the kernel file's defines.
#pragma once

namespace {

typedef unsigned long long u64;
constexpr unsigned FULL_WARP = 0xffffffffu;

// 8 letters from position `pos` of a packed sequence (32-bit words of 8 letters: one funnel shift).
// Each kernel file defines it: wfa.cu with plain loads (its letters are in shared memory where they
// fit), wfa_cluster.cu through the read-only path.
__device__ __forceinline__ unsigned window8(const u64* s, int pos);

// The first 8 letters of the run of matches from (h, v = h - k), without a branch (most diagonals
// of a step stop within a few letters: ~12 instructions): the offset after the run, or h + 8 with
// `more` when all 8 matched (extend_warp goes on from there).
__device__ __forceinline__ int probe8(const u64* a, const u64* b, int h, int k, bool& more) {
    const unsigned x = window8(a, h - k) ^ window8(b, h);
    more = x == 0;
    return h + (x ? (__ffs(int(x)) - 1) >> 2 : 8);
}

// The offset after the run of matching letters from (h, v = h - k), by the whole warp (called by
// all its lanes with the same h and k): lane l compares the 8 letters at h + 8 l, 256 a round. A
// lane's window is read at its position clamped to the sequences' ends: a lane past an end comes
// after the lane whose window holds that end, whose pad letter is a mismatch.
__device__ __forceinline__ int extend_warp(const u64* a, const u64* b, int h, int k, int lane, int n, int m) {
    while (true) {
        const unsigned x = window8(a, min(h - k + 8 * lane, n)) ^ window8(b, min(h + 8 * lane, m));
        const unsigned differ = __ballot_sync(FULL_WARP, x != 0);
        if (differ) {
            const int first = __ffs(int(differ)) - 1;
            return h + 8 * first + ((__ffs(int(__shfl_sync(FULL_WARP, x, first))) - 1) >> 2);
        }
        h += 256;
    }
}

struct Range {
    int lo, hi;  // empty when lo > hi
    __device__ __forceinline__ bool has(int k) const { return k >= lo && k <= hi; }
    __device__ __forceinline__ int width() const { return max(hi - lo + 1, 0); }
};

// The walk's runs (length << 2 | op), from the end backwards; the open run stays in registers.
struct Runs {
    unsigned* out;
    int count;
    unsigned op;
    unsigned len;
    __device__ void emit(unsigned what, int many) {
        if (many <= 0) return;
        if (len && what != op) out[count++] = (len << 2) | op;
        if (what != op) len = 0;
        op = what;
        len += unsigned(many);
    }
    __device__ int close() {
        if (len) out[count++] = (len << 2) | op;
        return count;
    }
};

}  // namespace
