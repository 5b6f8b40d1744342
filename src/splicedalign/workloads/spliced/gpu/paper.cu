// The paper's accelerators (Nolasco & Moreano, section VI; thesis Fig. 6.2): one block per
// exon. Phase 1 folds the last rows of all preceding exons into shared memory, phase 2 sweeps
// the exon's anti-diagonals in the skewed, right-aligned three-row layout (Fig. 12), phase 3
// writes the exon's last row to global memory. accel1 launches one block per exon; accel2
// launches one block per exon of a whole group (SPEC section 3).
//
// Tiling (as in the paper): each thread covers several target columns in phases 1 and 3 and
// several exon rows in phase 2; exons longer than the shared-memory strip (`strip` rows) are
// swept strip after strip, each strip's last row being the next strip's entry row.

template <typename T>
__device__ __forceinline__ T w_score(unsigned char b, unsigned char t, int match, int mismatch) {
    return b == t ? (T)match : (T)mismatch;  // base wildcard 4 never equals target wildcard 5
}

template <typename T>
__global__ void accel_exons(int k0, const int* __restrict__ first, const int* __restrict__ last,
                            const unsigned char* __restrict__ base,
                            const unsigned char* __restrict__ target, int n,
                            T* __restrict__ rows, int strip, int match, int mismatch, int gap, int lead) {
    extern __shared__ unsigned char smem_raw[];
    T* row = reinterpret_cast<T*>(smem_raw);       // entry row, then last row (n + 1)
    T* diag = row + (n + 1);                       // three anti-diagonals (strip + 1 each)
    const int k = k0 + blockIdx.x;
    const int fk = first[k], lk = last[k];
    const int tid = threadIdx.x, nt = blockDim.x;

    // Phase 1: P_k[j] = max(-lead*j, max over l with last(l) < first(k) of S(last(l), j, l)),
    // lead = gap with global target ends, 0 with free ends (the host takes the final maximum).
    for (int j = tid; j <= n; j += nt) {
        T p = -(T)lead * j;
        for (int l = 0; l < k; ++l)
            if (last[l] < fk) p = max(p, rows[(long long)l * (n + 1) + j]);
        row[j] = p;
    }
    __syncthreads();

    // Phase 2, strip by strip: skewed right-aligned layout, index i = exon row in the strip,
    // anti-diagonal d = i + j; index 0 carries the entry row.
    for (int i0 = fk; i0 <= lk; i0 += strip) {
        const int rows_here = min(strip, lk - i0 + 1);
        T* p2 = diag;
        T* p1 = diag + (strip + 1);
        T* cur = diag + 2 * (strip + 1);
        for (int d = 0; d <= rows_here + n; ++d) {
            for (int i = tid; i <= rows_here; i += nt) {
                if (i == 0) {
                    if (d <= n) cur[0] = row[d];
                    continue;
                }
                const int j = d - i;
                if (j < 0 || j > n) continue;
                T h;
                if (j == 0) {
                    h = p1[i - 1] - gap;
                } else {
                    const T diag_v = p2[i - 1] + w_score<T>(base[i0 + i - 2], target[j - 1], match, mismatch);
                    h = max(diag_v, max(p1[i - 1], p1[i]) - gap);
                }
                cur[i] = h;
                if (i == rows_here) row[j] = h;  // row[j] was read at anti-diagonal j < d
            }
            __syncthreads();
            T* t = p2; p2 = p1; p1 = cur; cur = t;
        }
    }

    // Phase 3: the last row to global memory (coalesced).
    for (int j = tid; j <= n; j += nt) rows[(long long)k * (n + 1) + j] = row[j];
}

template __global__ void accel_exons<int>(int, const int*, const int*, const unsigned char*,
                                          const unsigned char*, int, int*, int, int, int, int, int);
template __global__ void accel_exons<long long>(int, const int*, const int*, const unsigned char*,
                                                const unsigned char*, int, long long*, int, int, int, int, int);
