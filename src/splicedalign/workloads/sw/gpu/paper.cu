// `sw-scan`: paper 003's design (Chang & Chen), kept recognisable. One block of BW threads
// per database sequence; thread x owns column c0 + x of the current slice (BW columns; the
// paper's 512, or the block width when the sequences are shorter). Per query row i:
//   (a) H'[j] = max(H[i-1][j-1] + sbt(q_i, d_j), H[i-1][j] - g, 0)       in parallel over j
//   (b) H[i][j] = max_{k <= j} (H'[k] - (j-k) g): an inclusive prefix maximum of H'[j] + j g
//       across the block, minus j g; the slice's left neighbour H[i][c0-1] (kept in global
//       memory from the previous slice, the paper's "last column of the slice") enters as
//       the term H[i][c0-1] - (j-c0+1) g.
// Row i-1 lives in shared memory; the query profile row of q_i (the paper's texture-memory
// substitution matrix and query) is read through the read-only data cache (__ldg).

// SW_CODES and SW_PAD_ROW are plan.DEFINES: NVRTC gets them as -D, nvcc builds read the
// generated header.
#ifndef __CUDACC_RTC__
#include "paper.defines.h"
#endif

namespace {
constexpr unsigned FULL = 0xffffffffu;
constexpr int NEG = -(1 << 28);  // below every H' + j g; never reached by a real cell

// inclusive max-scan over the block; `warp_tot` holds BW/32 ints of shared memory
template <int BW>
__device__ __forceinline__ int block_max_scan(int v, int* warp_tot) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const int o = __shfl_up_sync(FULL, v, off);
        if (lane >= off) v = max(v, o);
    }
    if constexpr (BW > 32) {
        if (lane == 31) warp_tot[warp] = v;
        __syncthreads();
        if (warp == 0) {
            int w = lane < BW / 32 ? warp_tot[lane] : NEG;
#pragma unroll
            for (int off = 1; off < BW / 32; off <<= 1) {
                const int o = __shfl_up_sync(FULL, w, off);
                if (lane >= off) w = max(w, o);
            }
            if (lane < BW / 32) warp_tot[lane] = w;
        }
        __syncthreads();
        if (warp > 0) v = max(v, warp_tot[warp - 1]);
    }
    return v;
}
}  // namespace

// seqs: the block's database sequence is seqs[blockIdx.x]. prof: m x SW_CODES (plain sbt).
// column: per block m ints of scratch (the previous slice's last column). out[seq] = score.
template <int BW>
__global__ void __launch_bounds__(BW) sw_scan(const unsigned char* __restrict__ codes,
                                              const long long* __restrict__ offsets,
                                              const int* __restrict__ seqs, const int* __restrict__ prof, int m,
                                              int gap, int* __restrict__ column, int* __restrict__ out) {
    __shared__ int prev[BW + 1];  // prev[1 + x] = H[i-1][c0 + x]; prev[0] = H[i-1][c0 - 1]
    __shared__ int warp_tot[BW / 32 > 0 ? BW / 32 : 1];
    __shared__ int block_best[BW / 32 > 0 ? BW / 32 : 1];
    const int seq = seqs[blockIdx.x];
    const unsigned char* d = codes + offsets[seq];
    const int n = (int)(offsets[seq + 1] - offsets[seq]);
    int* col = column + (long long)blockIdx.x * m;
    const int x = threadIdx.x;
    int best = 0;
    for (int c0 = 0; c0 < n; c0 += BW) {
        const int j = c0 + x;
        const bool valid = j < n;
        const int letter = valid ? d[j] : SW_PAD_ROW;
        prev[1 + x] = 0;  // row 0
        if (x == 0) prev[0] = 0;
        __syncthreads();
        for (int i = 0; i < m; ++i) {
            const int left = c0 > 0 ? col[i] : 0;  // H[i][c0-1]
            const int s = __ldg(prof + i * SW_CODES + letter);
            const int hp = max(max(prev[x] + s, prev[1 + x] - gap), 0);  // (a)
            const int scan = block_max_scan<BW>(valid ? hp + x * gap : NEG, warp_tot);  // (b)
            const int h = max(scan, left - gap) - x * gap;
            __syncthreads();  // every thread has read prev and col[i]
            prev[1 + x] = h;
            if (x == 0) prev[0] = left;
            if (x == BW - 1) col[i] = h;
            if (valid) best = max(best, h);
            __syncthreads();
        }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) best = max(best, __shfl_xor_sync(FULL, best, off));
    if constexpr (BW > 32) {
        if ((x & 31) == 0) block_best[x >> 5] = best;
        __syncthreads();
        if (x == 0) {
            for (int w = 1; w < BW / 32; ++w) best = max(best, block_best[w]);
        }
    }
    if (x == 0) out[seq] = best;
}

// nvcc (CI) builds every instance to check it for spills; NVRTC builds only the one asked for.
#ifndef __CUDACC_RTC__
template __global__ void sw_scan<128>(const unsigned char*, const long long*, const int*, const int*, int, int, int*,
                                      int*);
template __global__ void sw_scan<256>(const unsigned char*, const long long*, const int*, const int*, int, int, int*,
                                      int*);
template __global__ void sw_scan<512>(const unsigned char*, const long long*, const int*, const int*, int, int, int*,
                                      int*);
#endif
