// `primer-paper`: the paper's best CUDA design (papers/001, section 4: alternative solution with
// optimizations 3+4+5+6), kept recognisable.
//
// One block per start r (coarse grain); the block's PP_THREADS threads compute one column e of
// the Landau-Vishkin matrix L at a time, one diagonal d each (fine grain), e = 0 .. k - 1:
// L[d, e] = the furthest row on diagonal d = j - i reached with <= e differences,
//   row = max(L[d-1, e-1], L[d, e-1] + 1, L[d+1, e-1] + 1), clipped to M and n - d, then slid
//   along the diagonal while alpha and beta letters are equal (every test is a comparison).
// Opt 4 (tiling): parallelogram tiles of PP_THREADS diagonals, tile q holding diagonals
//   [q*T - e, q*T - e + T) at column e, tiles in order; a tile's first two threads need the
//   previous tile's last two diagonals of column e - 1: that O(k) boundary is kept in shared
//   memory (double-buffered by tile parity), like the shaded cells of the paper's Fig. 6b.
// Opt 3: each thread keeps its own maximum of column k - 1; one block reduction at the end.
// Opt 5: the first PA = ceil(PP_C * k / T) * T letters of the suffix of alpha are prefetched
//   into shared memory once per start; later rows read global memory (a miss).
// Opt 6: a window of PB = PA + T letters of beta, starting at q*T - k + 1, sits in a shared ring;
//   each tile prefetches its T new letters; positions outside the window read global memory.
// Opt 2 is left out, as the paper did on the GPU. Diagonals d < -e do not exist and d >= n
// holds row -1; both only ever enter as dominated candidates (the d + 1 neighbour of the first
// diagonal of a column always reaches row >= e).

// PP_THREADS (threads per block = diagonals per tile) and PP_C (the prefetch factor c) are
// paper.DEFINES: NVRTC gets them as -D, nvcc builds read the generated header.
#ifndef __CUDACC_RTC__
#include "paper.defines.h"
#endif

__global__ void __launch_bounds__(PP_THREADS) primer_paper(
    const unsigned char* __restrict__ alpha, int m, const unsigned char* __restrict__ beta, int n,
    int k, int first, int* __restrict__ prefix, unsigned long long* __restrict__ comps_total) {
    constexpr int T = PP_THREADS;
    const int x = threadIdx.x;
    const int r0 = first + blockIdx.x;
    const int M = m - r0;
    const int PA = (PP_C * k + T - 1) / T * T;
    const int PB = PA + T;
    extern __shared__ int smem[];
    int* col = smem;                       // 2 x (T + 2): columns e - 1 and e of the tile
    int* bnd = col + 2 * (T + 2);          // 2 (tile parity) x k x 2: last two diagonals per column
    int* best = bnd + 4 * k;               // T: per-thread results (Opt 3)
    unsigned char* apf = reinterpret_cast<unsigned char*>(best + T);  // PA letters of alpha (Opt 5)
    unsigned char* ring = apf + PA;        // PB letters of beta (Opt 6)

    for (int p = x; p < PA; p += T) apf[p] = p < M ? alpha[r0 + p] : 0xff;
    for (int p = x; p < 4 * k; p += T) bnd[p] = -1;  // tile -1: no diagonals (dominated -1)
    int mine = 0;
    unsigned long long comps = 0;
    const int tiles = (n + k - 2) / T + 1;  // the last tile holds diagonal n - 1 at column k - 1
    for (int q = 0; q < tiles; ++q) {
        const int ws = q * T - k + 1;       // beta window [ws, ws + PB)
        for (int p = (q == 0 ? ws : ws + PB - T) + x; p < ws + PB; p += T)
            if (p >= 0 && p < n) ring[p % PB] = beta[p];
        col[x + 2] = -1;                    // column -1
        if (x < 2) col[x] = -1;
        const int* prev_bnd = bnd + 2 * k * ((q + 1) & 1);
        int* my_bnd = bnd + 2 * k * (q & 1);
        __syncthreads();
        for (int e = 0; e < k; ++e) {
            const int* src = col + (T + 2) * (e & 1);
            int* dst = col + (T + 2) * ((e + 1) & 1);
            const int d = q * T - e + x;
            int row = -1;
            if (d < n) {
                row = max(src[x], max(src[x + 1], src[x + 2]) + 1);
                row = min(row, min(M, n - d));
                while (row < M && row + d < n) {
                    ++comps;
                    const unsigned char a = row < PA ? apf[row] : alpha[r0 + row];
                    const int p = row + d;
                    const unsigned char b = (p >= ws && p < ws + PB) ? ring[p % PB] : beta[p];
                    if (a != b) break;
                    ++row;
                }
                if (e == k - 1) mine = max(mine, row);
            }
            dst[x + 2] = row;
            if (x >= T - 2) my_bnd[2 * e + x - (T - 2)] = row;
            if (x < 2) dst[x] = prev_bnd[2 * e + x];
            __syncthreads();
        }
    }
    best[x] = mine;
    __syncthreads();
    for (int s = T / 2; s > 0; s >>= 1) {
        if (x < s) best[x] = max(best[x], best[x + s]);
        __syncthreads();
    }
    if (x == 0) prefix[blockIdx.x] = min(best[0], M);
    atomicAdd(comps_total, comps);
}
