// `gpu` solver (ours): one thread per start r and column segment of beta (few starts, like the
// paper's Table-1 shape's 43,606, fill the GPU only when beta is cut into segments), each a
// column-wise bit-parallel sweep.
//
// Thread s answers start r0 = first + s (0-based; or starts[s] for a retry list): c(r), the
// last row of D(alpha[r0..m), beta) whose minimum is <= t = k - 1 (SPEC-workloads A), by
// Myers/Hyyro bit vectors, 64 rows per word, blocks 0..last active (Ukkonen's cut-off: every
// cell <= t lies in them and is exact; other active cells may be overestimated but stay > t).
// After each column the deepest row <= t is sought upward from the last active row, jumping
// v - t rows from a row of value v > t (a column changes by at most 1 per row), down to the
// best row found so far. The same algorithm as the CPU `sequential` (cpu_kernels.py), without
// the start-to-start bound: starts are independent here.
//
// State: the vertical deltas Pv/Mv and bottom scores of MAXB words. REG = true: all loops over
// words are unrolled, so the words stay in registers; the match masks Peq (4 letters x MAXB
// words) live in shared memory, thread-strided (conflict-free). REG = false (retries of starts
// whose active region outgrew the register version): the same code with rolled loops, words in
// local memory and Peq in global scratch. A start needing more than MAXB words writes
// OVERFLOW; the host retries it with a larger instance or on the CPU.
// beta arrives as one code per byte (0-3, 5 = ambiguity), read 16 columns per 128-bit load;
// every lane of a warp reads the same address (a broadcast).

// PB_THREADS (threads per block) and PB_OVERFLOW (the prefix of a start whose active region
// needs more than MAXB words) are solver.DEFINES: NVRTC gets them as -D, nvcc builds read the
// generated header.
#ifndef __CUDACC_RTC__
#include "bitparallel.defines.h"
#endif

namespace {

typedef unsigned long long u64;
constexpr int W = 64;
constexpr u64 ALL = ~0ULL;
constexpr u64 HIGH = 1ULL << 63;

// One 64-row block of one column (Myers 1999 in Hyyro's block form, as edlib has it).
__device__ __forceinline__ int advance_block(u64& Pv, u64& Mv, u64 Eq, int hin) {
    const u64 hin_neg = hin < 0 ? 1ULL : 0ULL;
    const u64 Xv = Eq | Mv;
    Eq |= hin_neg;
    const u64 Xh = (((Eq & Pv) + Pv) ^ Pv) | Eq;
    u64 Ph = Mv | ~(Xh | Pv);
    u64 Mh = Pv & Xh;
    const int hout = (Ph & HIGH) ? 1 : ((Mh & HIGH) ? -1 : 0);
    Ph = (Ph << 1) | (hin > 0 ? 1ULL : 0ULL);
    Mh = (Mh << 1) | hin_neg;
    Pv = Mh | ~(Xv | Ph);
    Mv = Ph & Xv;
    return hout;
}

// Value of row i (1-based, inside word b) from the word's bottom score and its deltas below i.
__device__ __forceinline__ int row_value(u64 Pv, u64 Mv, int score, int i, int b) {
    const int p = i - 1 - b * W;
    if (p == W - 1) return score;
    return score - (__popcll(Pv >> (p + 1)) - __popcll(Mv >> (p + 1)));
}

template <int MAXB, bool REG>
__device__ __forceinline__ int sweep(const unsigned char* __restrict__ alpha, int r0, int M,
                                     const uint4* __restrict__ beta16, int n, int t, u64* peq,
                                     int stride, u64& comps) {
    constexpr int U = REG ? MAXB : 1;  // unroll count: REG keeps the words in registers
    u64 Pv[MAXB], Mv[MAXB];
    int score[MAXB];
    const int nb = (M + W - 1) / W;
    const int nbuild = nb < MAXB ? nb : MAXB;
    for (int b = 0; b < nbuild; ++b) {
        u64 q0 = 0, q1 = 0, q2 = 0, q3 = 0;
        for (int p = 0; p < W && b * W + p < M; ++p) {
            const int a = alpha[r0 + b * W + p];
            const u64 bit = 1ULL << p;
            q0 |= a == 0 ? bit : 0ULL;
            q1 |= a == 1 ? bit : 0ULL;
            q2 |= a == 2 ? bit : 0ULL;
            q3 |= a == 3 ? bit : 0ULL;
        }
        peq[(4 * b + 0) * stride] = q0;
        peq[(4 * b + 1) * stride] = q1;
        peq[(4 * b + 2) * stride] = q2;
        peq[(4 * b + 3) * stride] = q3;
    }
    int last = ((t + W) / W < nb ? (t + W) / W : nb) - 1;  // words over rows 1 .. t + 1
    if (last >= MAXB) return PB_OVERFLOW;
#pragma unroll U
    for (int b = 0; b < MAXB; ++b) {
        Pv[b] = ALL;
        Mv[b] = 0;
        score[b] = (b + 1) * W;
    }
    int cstar = t < M ? t : M;  // rows 0 .. t qualify trivially (D[i][0] = i)
    const int words = (n + 15) / 16;
    for (int w16 = 0; w16 < words; ++w16) {
        const uint4 pack = __ldg(&beta16[w16]);
#pragma unroll 1
        for (int q = 0; q < 16 && w16 * 16 + q < n; ++q) {
            const unsigned int word = q < 8 ? (q < 4 ? pack.x : pack.y) : (q < 12 ? pack.z : pack.w);
            const int c = (word >> (8 * (q & 3))) & 0xff;
            // Ukkonen's cut-off: the word after the last active one opens in this column when
            // its top row can reach <= t; trailing words whose every row is > t (bottom >= t + W)
            // close. (Opening inside the unrolled loop keeps every word index static.)
            int hout = 0;
            int opened = last;
#pragma unroll U
            for (int b = 0; b < MAXB; ++b) {
                if (b <= last) {
                    const u64 Eq = c < 4 ? peq[(4 * b + c) * stride] : 0ULL;
                    hout = advance_block(Pv[b], Mv[b], Eq, hout);
                    score[b] += hout;
                } else if (b == last + 1 && b < nb && score[b - 1] - hout <= t) {
                    const u64 Eq = c < 4 ? peq[(4 * b + c) * stride] : 0ULL;
                    if (hout < 0 || (Eq & 1ULL)) {
                        Pv[b] = ALL;
                        Mv[b] = 0;
                        const int h = advance_block(Pv[b], Mv[b], Eq, hout);
                        score[b] = score[b - 1] - hout + W + h;
                        opened = b;
                    }
                }
            }
            if (opened == last) {
                // the register words are used up while the region may still grow: retry larger
                if (last == MAXB - 1 && last < nb - 1 && score[last] - hout <= t) return PB_OVERFLOW;
#pragma unroll U
                for (int b = MAXB - 1; b > 0; --b) {
                    if (b == last && score[b] >= t + W) --last;
                }
            } else {
                last = opened;
            }
            comps += (u64)min((opened + 1) * W, M);
            // deepest row <= t below cstar: downward over the words from the last active one
            int i = min((last + 1) * W, M);
#pragma unroll U
            for (int b = MAXB - 1; b >= 0; --b) {
                if (b <= last) {
                    while (i > cstar && i > b * W) {
                        const int v = row_value(Pv[b], Mv[b], score[b], i, b);
                        if (v <= t) {
                            cstar = i;
                            i = 0;
                        } else {
                            i -= v - t;
                        }
                    }
                }
            }
            if (cstar >= M) return M;
        }
    }
    return cstar;
}

// Thread (s, g): start s of the launch against column segment g = blockIdx.y of beta. Segment
// g reports the rows <= t it finds in columns [lo, hi) = [g * seg - over, (g + 1) * seg) (lo
// rounded down to a 16-column load): the DP of alpha[r0..) against beta[lo, hi) has every cell
// >= the true one, and equal where the cell's best alignment starts at or after lo. An
// alignment with <= t differences of i rows spans <= i + t columns, so with over >= MAXB * 64 + t
// every row <= t the register words can hold is found in the segment holding its column; a
// start needing more words overflows anyway. The host takes the maximum over segments.
template <int MAXB, bool REG>
__device__ void bitparallel_prefixes(const unsigned char* __restrict__ alpha, int m,
                                     const uint4* __restrict__ beta16, int n, int k, int first,
                                     int count, const int* __restrict__ starts, int seg, int over,
                                     int* __restrict__ prefix, u64* __restrict__ comps_total,
                                     u64* __restrict__ scratch) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    u64* peq;
    int stride;
    if (REG) {
        extern __shared__ u64 shared_peq[];
        peq = shared_peq + threadIdx.x;
        stride = PB_THREADS;
    } else {
        peq = scratch + s;
        stride = gridDim.x * blockDim.x;
    }
    if (s >= count) return;
    const int r0 = starts ? starts[s] : first + s;
    const long long start_col = (long long)blockIdx.y * seg - over;
    const int lo = start_col <= 0 ? 0 : (int)(start_col / 16 * 16);
    const long long end_col = (long long)(blockIdx.y + 1) * seg;
    const int hi = end_col < n ? (int)end_col : n;
    u64 comps = 0;
    prefix[(size_t)blockIdx.y * count + s] =
        lo < hi ? sweep<MAXB, REG>(alpha, r0, m - r0, beta16 + lo / 16, hi - lo, k - 1, peq, stride, comps) : 0;
    atomicAdd(comps_total, comps);
}

}  // namespace

template <int MAXB>
__global__ void __launch_bounds__(PB_THREADS) bitparallel_registers(
    const unsigned char* __restrict__ alpha, int m, const uint4* __restrict__ beta16, int n, int k,
    int first, int count, const int* __restrict__ starts, int seg, int over, int* __restrict__ prefix,
    unsigned long long* __restrict__ comps_total) {
    bitparallel_prefixes<MAXB, true>(alpha, m, beta16, n, k, first, count, starts, seg, over, prefix, comps_total,
                                     nullptr);
}

template <int MAXB>
__global__ void __launch_bounds__(PB_THREADS) bitparallel_local(
    const unsigned char* __restrict__ alpha, int m, const uint4* __restrict__ beta16, int n, int k,
    int first, int count, const int* __restrict__ starts, int* __restrict__ prefix,
    unsigned long long* __restrict__ comps_total, unsigned long long* __restrict__ scratch) {
    bitparallel_prefixes<MAXB, false>(alpha, m, beta16, n, k, first, count, starts, n, 0, prefix, comps_total,
                                      scratch);
}

template __global__ void bitparallel_registers<16>(const unsigned char*, int, const uint4*, int, int, int, int,
                                                   const int*, int, int, int*, unsigned long long*);
template __global__ void bitparallel_local<128>(const unsigned char*, int, const uint4*, int, int, int, int,
                                                const int*, int*, unsigned long long*, unsigned long long*);
