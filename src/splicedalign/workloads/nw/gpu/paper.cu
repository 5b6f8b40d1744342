// `nw-tiles`: paper 002's CUDA design (Johnson, cuda_grid_align_block) kept recognisable.
// The whole (n+1) x (m+1) cost table lives in global memory; it is cut into TILE x TILE tiles
// and one launch computes one anti-diagonal of tiles, one block per tile and one thread per
// tile row. Inside a tile the threads sweep the tile's 2*TILE-1 inner anti-diagonals with a
// barrier after each (thread t computes cell (t, k - t) at inner step k).
// Differences from the paper, none of which changes its schedule: 64-bit table offsets (its
// int offsets overflowed at n = 30,368), any lengths (cells outside the table are skipped
// instead of requiring multiples of 16 and n = m), letters as codes that never match when
// ambiguous, costs as arguments.

// TILE is paper.DEFINES: NVRTC gets it as -D, nvcc builds read the generated header.
#ifndef __CUDACC_RTC__
#include "paper.defines.h"
#endif

__global__ void __launch_bounds__(TILE) tiles_diagonal(int* __restrict__ table,
                                                       const unsigned char* __restrict__ a,
                                                       const unsigned char* __restrict__ b,
                                                       int n, int m, int d, int first_tile_row,
                                                       int match, int mismatch, int indel) {
    const int t = threadIdx.x;
    const int tile_row = first_tile_row + static_cast<int>(blockIdx.x);
    const int tile_col = d - tile_row;
    const long long width = static_cast<long long>(m) + 1;
    const int y = tile_row * TILE + t + 1;  // this thread's table row
    for (int k = 0; k < 2 * TILE - 1; ++k) {
        const int x = tile_col * TILE + (k - t) + 1;  // table column of inner step k
        if (t <= k && k - t < TILE && y <= n && x <= m) {
            const long long here = static_cast<long long>(y) * width + x;
            const int diag = table[here - width - 1];
            const int vert = table[here - width];
            const int horz = table[here - 1];
            const int c1 = diag + (a[y - 1] == b[x - 1] ? match : mismatch);
            const int c2 = vert + indel;
            const int c3 = horz + indel;
            table[here] = min(c1, min(c2, c3));
        }
        __syncthreads();
    }
}

// Row 0 and column 0 of the table: D[0][j] = indel * j, D[i][0] = indel * i.
__global__ void tiles_borders(int* __restrict__ table, int n, int m, int indel) {
    const long long width = static_cast<long long>(m) + 1;
    const int k = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (k <= m) table[k] = indel * k;
    if (k <= n) table[static_cast<long long>(k) * width] = indel * k;
}
