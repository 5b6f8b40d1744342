// `gpu` solver: a whole batch of test cases in one persistent launch.
//
// Work comes as a list of tasks in an order consistent with every case's dependencies; warps
// take tasks in that order from one atomic counter, so whatever a task waits on was taken
// earlier by a warp that is running: spinning on it cannot deadlock. Two task kinds:
//  * strip: up to 32*R consecutive rows of one exon. Lane l holds R rows in registers and
//    sweeps the target's columns U at a time, U columns behind lane l-1 (a wavefront inside
//    the warp, handed down by shuffles). Lane 0 reads the entry row (the previous strip's
//    bottom row, or the running-max fold row of the exon's predecessors) as its producer
//    publishes it; lane 31 publishes the strip's bottom row. Rows of a strip are aligned to
//    its bottom, so the exon's last row is always lane 31's register R-1; rows above the exon
//    (padding) copy the entry row unchanged.
//  * fold: M_q = max(M_{q-1}, last row of the q-th exon by `last`) (SPEC section 2, running
//    max), M_{-1} being the chain-start row -gap*j. An exon's entry row is one fold row.
// Every row has a progress flag: how many of its leading columns are in global memory.
//
// Inside a strip, scores are shifted: h' = h + gap*(c + j), c = rows of the exon in the strip
// so far. Then S = max(diag + w + 2gap, up, left) for an exon row, and
// S = max(diag + w', up, left) with w' <= 0 for a padding row: one max, one add-max (DPX
// __viaddmax_s32 on sm_90) and the profile look-up per cell. The profile look-up is one PRMT:
// a row's base letter is fixed, so its shifted scores against target codes 0..7 are eight
// signed bytes in two registers, and each column's selector (target code plus sign
// replication) picks one. Scorings whose shifted scores do not fit a byte (BYTES = false)
// compare codes instead: padding rows get code 6, which no target code equals, and w' = 0.
//
// H selects how a task hands rows over: 0, 1 = PIPE false / true (docs/gpu.md, round three),
// 2 = PIPE plus the fused fold entry (round four, below). On the critical path of
// a long dependent chain (IL1RAPL1: ~1,100 dependent exons) a consumer is always caught up with
// its producer, and PIPE = false then pays one L2 round trip per 4-column step on its critical
// path (lane 0 loads block u only at step u, the whole warp waiting on it via the shuffles),
// plus 31 steps of lane skew through padding lanes and a fold that waits for 128 columns.
// PIPE = true: (1) the entry row is read in windows: when the window is used up, one flag poll,
// then every lane loads one of the next <= 32 published blocks at once (two round trips per
// window instead of one per step); (2) the entry row enters at the first lane holding an exon
// row (lanes above it hold only padding rows, which are the identity on entry rows, see below),
// so a short exon's strip has less skew and fewer steps; (3) a fold folds whatever both inputs
// have published (4 to 128 columns) instead of waiting for 128. Waits are bounded: a wait that
// exceeds WAIT_LIMIT cycles sets the error word (the host raises) instead of hanging.
// H = 2, fused fold entry: a first strip whose entry is fold row M_q = max(M_{q-1}, L_q) reads
// M_{q-1} and L_q (the last row of the q-th exon by `last`) itself and takes the max while
// loading its window. On a dependent chain L_q is the row that arrives last, so the chain's hop
// is strip -> strip instead of strip -> fold -> strip (one poll, one load and two fences less
// per hop; the fold task still runs for later consumers). Lanes 0 and 1 poll the two flags at
// once. The entry row is the same row, so scores are identical.
// Padding rows as identity: a shifted entry row e'(j) = e(j) + gap*j is non-decreasing in j
// (every DP row has S(j) >= S(j-1) - gap, and the running max and the chain-start row keep
// that), and a padding row maps e' to its prefix maximum, i.e. to itself.

namespace {

constexpr int KIND_FOLD = 1;

template <typename T> struct Neg;
template <> struct Neg<int> { static constexpr int v = -(1 << 29); };
template <> struct Neg<long long> { static constexpr long long v = -(1LL << 60); };

__device__ __forceinline__ int addmax(int a, int b, int c) {
#if __CUDA_ARCH__ >= 900
    return __viaddmax_s32(a, b, c);
#else
    return max(a + b, c);
#endif
}
__device__ __forceinline__ long long addmax(long long a, long long b, long long c) { return max(a + b, c); }

__device__ __forceinline__ int prmt_signed(unsigned lo, unsigned hi, unsigned sel) {
    int r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(sel));
    return r;
}

__device__ __forceinline__ int load_acquire(const int* p) {
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void store_release(int* p, int v) {
    asm volatile("st.release.gpu.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// Wait until the row behind `flag` has at least `need` columns published.
__device__ __forceinline__ int wait_for(const int* flag, int have, int need) {
    while (have < need) {
        have = load_acquire(flag);
        if (have < need) __nanosleep(64);
    }
    return have;
}

// ~8.7 s at 1.98 GHz: far beyond any legitimate wait of a launch the host forms (the longest
// measured critical path is 61 ms), short enough that a broken hand-off ends the launch.
constexpr long long WAIT_LIMIT = 1LL << 34;

// wait_for, bounded: past WAIT_LIMIT it sets *error and returns `need` (the launch's results
// are then void; the host checks *error and raises).
__device__ __forceinline__ int wait_bounded(const int* flag, int have, int need, int* error) {
    long long start = -1;
    while (have < need) {
        have = load_acquire(flag);
        if (have < need) {
            const long long now = clock64();
            if (start < 0) start = now;
            else if (now - start > WAIT_LIMIT) {
                atomicExch(error, 1);
                return need;
            }
            __nanosleep(64);
        }
    }
    return have;
}

// wait_bounded for two rows at once (H = 2): lanes 0 and 1 each poll one flag (f0 == f1 for a
// single input); all lanes return the columns both rows have published (warp-uniform).
__device__ __forceinline__ int wait_pair(const int* f0, const int* f1, int have, int need, int* error) {
    const int lane = threadIdx.x & 31;
    long long start = -1;
    while (have < need) {
        const int v = lane < 2 ? load_acquire(lane ? f1 : f0) : 0;
        have = min(__shfl_sync(0xffffffffu, v, 0), __shfl_sync(0xffffffffu, v, 1));
        if (have < need) {
            const long long now = __shfl_sync(0xffffffffu, clock64(), 0);
            if (start < 0) start = now;
            else if (now - start > WAIT_LIMIT) {
                if (lane == 0) atomicExch(error, 1);
                return need;
            }
            __nanosleep(64);
        }
    }
    return have;
}

// U consecutive scores from global memory, bypassing L1 (rows are written by other SMs).
template <typename T, int U> struct Vec { T v[U]; };
template <typename T, int U>
__device__ __forceinline__ Vec<T, U> load_cg(const T* p) {
    static_assert((sizeof(T) * U) % 8 == 0, "vector width");
    Vec<T, U> out;
    if constexpr ((sizeof(T) * U) % 16 == 0) {
        const int4* q = reinterpret_cast<const int4*>(p);
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) * U / 16); ++i) reinterpret_cast<int4*>(out.v)[i] = __ldcg(q + i);
    } else {
        const int2* q = reinterpret_cast<const int2*>(p);
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) * U / 8); ++i) reinterpret_cast<int2*>(out.v)[i] = __ldcg(q + i);
    }
    return out;
}
template <typename T, int U>
__device__ __forceinline__ void store_vec(T* p, const Vec<T, U>& x) {
    *reinterpret_cast<Vec<T, U>*>(p) = x;
}

struct Task {
    int kind, n, tgt, base_or_lflag;   // strip: base offset of the strip's first exon row; fold: flag of L
    int in_row, in_flag, out_row, out_flag;  // in_row < 0: the entry is the chain-start row
    int rows_or_lrow, in2_row, in2_flag, pad; // strip: exon rows in the strip; fold: offset of L.
                                              // in2_row >= 0 (H = 2): entry = max(in, in2)
};

// Shifted scores of one base letter against target codes 0..3 (lo) and 4..7 (hi) as bytes.
__device__ __forceinline__ void row_profile(int b, int match2, int mismatch2, unsigned& lo, unsigned& hi) {
    lo = 0;
#pragma unroll
    for (int c = 0; c < 4; ++c) lo |= (unsigned)((c == b ? match2 : mismatch2) & 0xff) << (8 * c);
    hi = (unsigned)(mismatch2 & 0xff) * 0x01010101u;
}

template <typename T, int R, int U, bool BYTES, int H>
__device__ void strip_task(const Task& t, const unsigned char* __restrict__ base,
                           const int* __restrict__ tsel, T* rows, int* flags,
                           int match, int mismatch, int gap, int* error) {
    constexpr int STEPS_BETWEEN_FLAGS = 32 / U;
    const int lane = threadIdx.x & 31;
    const int n = t.n, exon_rows = t.rows_or_lrow;
    const int pad = 32 * R - exon_rows;  // padding rows on top of the strip
    // The lane that takes the entry row: PIPE skips the lanes holding only padding rows (their
    // cells are then throw-away: nothing they compute reaches lane `head` or below).
    const int head = H ? pad / R : 0;
    unsigned plo[R], phi[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int rho = lane * R + r;
        const int b = rho < pad ? 6 : base[t.base_or_lflag + rho - pad];
        if constexpr (BYTES) {
            if (rho < pad) { plo[r] = 0; phi[r] = 0; }  // padding row: w' = 0 copies the entry row
            else row_profile(b, match + 2 * gap, mismatch + 2 * gap, plo[r], phi[r]);
        } else {
            plo[r] = b;
            phi[r] = rho < pad ? 0 : mismatch + 2 * gap;
        }
    }
    T h[R];
#pragma unroll
    for (int r = 0; r < R; ++r) h[r] = Neg<T>::v;  // column -1: never the max
    T x[U], xprev = Neg<T>::v;
#pragma unroll
    for (int q = 0; q < U; ++q) x[q] = Neg<T>::v;

    const int blocks = (n + U) / U;  // column blocks of U covering 0..n
    const T* in = rows + t.in_row;
    T* out = rows + t.out_row;
    int have = 0;
    const bool has_in = t.in_row >= 0;  // warp-uniform
    const bool has_in2 = H == 2 && t.in2_row >= 0;
    const T* in2 = rows + t.in2_row;
    // PIPE = false, entry-row prefetch: at every 32nd step the lanes load the next 32 column
    // blocks that are already published (lane i: block u+i) and hand them to lane 0 step by
    // step; lane 0 waits and loads block by block where its producer is not far enough ahead.
    // PIPE = true, windows: blocks [.., wend) are held by the lanes (block b in lane b & 31);
    // when step u runs past wend, one poll for block u, then every lane loads its block of the
    // next <= 32 published ones.
    T pre[U];
    bool pre_ok = false;
    int wend = 0;
    for (int u = 0; u < blocks + 31 - head; ++u) {
        if constexpr (H > 0) {
            if (has_in || has_in2) {
                if (u >= wend && u < blocks) {  // warp-uniform
                    const int need = min(u * U + U, n + 1);
                    int avail = 0;
                    if constexpr (H == 2) {
                        const int* f0 = flags + (has_in ? t.in_flag : t.in2_flag);
                        avail = wait_pair(f0, has_in2 ? flags + t.in2_flag : f0, have, need, error);
                    } else {
                        if (lane == 0) avail = wait_bounded(flags + t.in_flag, have, need, error);
                        avail = __shfl_sync(0xffffffffu, avail, 0);
                    }
                    __syncwarp();  // orders lanes 0/1's acquires before the other lanes' loads
                    have = avail;
                    wend = min(avail >= n + 1 ? blocks : avail / U, u + 32);  // complete blocks
                    const int b = u + ((lane - u) & 31);
                    if (b < wend) {
                        const int jp = b * U;
                        // no `in` (H = 2 only): the chain-start row -gap*j, shifted: 0
#pragma unroll
                        for (int q = 0; q < U; ++q) pre[q] = 0;
                        if (has_in) {
                            const Vec<T, U> v = load_cg<T, U>(in + jp);
#pragma unroll
                            for (int q = 0; q < U; ++q) pre[q] = v.v[q] + (T)gap * (jp + q);
                        }
                        if (has_in2) {
                            const Vec<T, U> v = load_cg<T, U>(in2 + jp);
#pragma unroll
                            for (int q = 0; q < U; ++q) pre[q] = max(pre[q], v.v[q] + (T)gap * (jp + q));
                        }
                    }
                }
                T got[U];
#pragma unroll
                for (int q = 0; q < U; ++q) got[q] = __shfl_sync(0xffffffffu, pre[q], u & 31);
                if (lane == head && u < blocks) {
#pragma unroll
                    for (int q = 0; q < U; ++q) x[q] = got[q];
                }
            } else if (lane == head && u < blocks) {
#pragma unroll
                for (int q = 0; q < U; ++q) x[q] = 0;  // -gap*j shifted by gap*j
            }
        } else {
        if (has_in && (u & 31) == 0 && u < blocks) {
            int avail = lane == 0 ? load_acquire(flags + t.in_flag) : 0;
            avail = __shfl_sync(0xffffffffu, avail, 0);
            __syncwarp();
            const int jp = (u + lane) * U;
            pre_ok = u + lane < blocks && min(jp + U, n + 1) <= avail;
            if (pre_ok) {
                const Vec<T, U> v = load_cg<T, U>(in + jp);
#pragma unroll
                for (int q = 0; q < U; ++q) pre[q] = v.v[q] + (T)gap * (jp + q);
            }
        }
        if (has_in) {
            T got[U];
#pragma unroll
            for (int q = 0; q < U; ++q) got[q] = __shfl_sync(0xffffffffu, pre[q], u & 31);
            const bool ok = __shfl_sync(0xffffffffu, pre_ok, u & 31);
            if (lane == 0 && u < blocks) {
                const int j0 = u * U;
                if (ok) {
#pragma unroll
                    for (int q = 0; q < U; ++q) x[q] = got[q];
                } else {
                    have = wait_for(flags + t.in_flag, have, min(j0 + U, n + 1));
                    const Vec<T, U> v = load_cg<T, U>(in + j0);
#pragma unroll
                    for (int q = 0; q < U; ++q) x[q] = v.v[q] + (T)gap * (j0 + q);
                }
            }
        } else if (lane == 0 && u < blocks) {
#pragma unroll
            for (int q = 0; q < U; ++q) x[q] = 0;  // -gap*j shifted by gap*j
        }
        }
        const int j0 = (u - lane + head) * U;  // this lane's columns j0 .. j0+U-1
        // Outside 0..n a lane computes throw-away cells; a valid selector (code 0) keeps w' a
        // small score there, so the -2^29 sentinel state cannot grow into a real score.
        constexpr int SEL0 = 0x8880;
        int4 sel4 = make_int4(SEL0, SEL0, SEL0, SEL0);
        if (j0 >= 0 && j0 <= n) {
            if constexpr (U == 4) sel4 = __ldg(reinterpret_cast<const int4*>(tsel + t.tgt + j0));
            else { const int2 s2 = __ldg(reinterpret_cast<const int2*>(tsel + t.tgt + j0)); sel4.x = s2.x; sel4.y = s2.y; }
        }
        const int sel[4] = {sel4.x, sel4.y, sel4.z, sel4.w};
        T o[U];
#pragma unroll
        for (int q = 0; q < U; ++q) {
            T diag = xprev, up = x[q];
#pragma unroll
            for (int r = 0; r < R; ++r) {
                T w;
                if constexpr (BYTES) w = (T)prmt_signed(plo[r], phi[r], (unsigned)sel[q]);
                else w = (T)(plo[r] == (unsigned)(sel[q] & 7) ? match + 2 * gap : (int)phi[r]);
                const T left = h[r];
                h[r] = addmax(diag, w, max(up, left));
                diag = left;
                up = h[r];
            }
            xprev = x[q];
            o[q] = h[R - 1];
        }
        if (lane == 31 && j0 >= 0 && j0 <= n) {
            Vec<T, U> v;
#pragma unroll
            for (int q = 0; q < U; ++q) v.v[q] = o[q] - (T)gap * (exon_rows + j0 + q);
            store_vec<T, U>(out + j0, v);
            const int done = min(j0 + U, n + 1);
            if (done == n + 1 || ((u + head) % STEPS_BETWEEN_FLAGS) == STEPS_BETWEEN_FLAGS - 1)
                store_release(flags + t.out_flag, done);
        }
#pragma unroll
        for (int q = 0; q < U; ++q) {
            if constexpr (sizeof(T) == 4) x[q] = __shfl_up_sync(0xffffffffu, o[q], 1);
            else x[q] = __shfl_up_sync(0xffffffffu, o[q], 1);
        }
    }
}

template <typename T, int U, int H>
__device__ void fold_task(const Task& t, T* rows, int* flags, int gap, int* error) {
    const int lane = threadIdx.x & 31;
    const int n = t.n;
    const T* prev = rows + t.in_row;
    const T* L = rows + t.rows_or_lrow;
    T* out = rows + t.out_row;
    int have_l = 0, have_p = t.in_row >= 0 ? 0 : n + 1;
    // Columns c0 .. c1-1 per pass. PIPE = false: c1 = c0 + 32*U once both inputs have it;
    // PIPE = true: whatever both inputs have published past c0, at least one block, at most
    // 32 (a fold on the critical path then lags its inputs by their flag grain, not 128 columns).
    for (int c0 = 0; c0 <= n;) {
        int c1 = min(c0 + 32 * U, n + 1);
        if (lane == 0) {
            if constexpr (H > 0) {
                const int need = min(c0 + U, n + 1);
                have_l = wait_bounded(flags + t.base_or_lflag, have_l, need, error);
                have_p = wait_bounded(flags + t.in_flag, have_p, need, error);
                c1 = min(c1, min(have_l, have_p));
            } else {
                have_l = wait_for(flags + t.base_or_lflag, have_l, c1);
                if (t.in_row >= 0) have_p = wait_for(flags + t.in_flag, have_p, c1);
            }
        }
        if constexpr (H > 0) c1 = __shfl_sync(0xffffffffu, c1, 0);
        __syncwarp();
        const int j0 = c0 + lane * U;  // c1 is a multiple of U or n + 1: block j0 is complete
        if (j0 < c1) {
            const Vec<T, U> a = load_cg<T, U>(L + j0);
            Vec<T, U> m;
            if (t.in_row >= 0) {
                const Vec<T, U> b = load_cg<T, U>(prev + j0);
#pragma unroll
                for (int q = 0; q < U; ++q) m.v[q] = max(a.v[q], b.v[q]);
            } else {
#pragma unroll
                for (int q = 0; q < U; ++q) m.v[q] = max(a.v[q], -(T)gap * (j0 + q));
            }
            store_vec<T, U>(out + j0, m);
        }
        __threadfence();
        __syncwarp();
        if (lane == 0) store_release(flags + t.out_flag, c1);
        c0 = c1;
    }
}

}  // namespace

// next_task[0]: the task counter; next_task[1]: the error word (a bounded wait ran out).
template <typename T, int R, int U, bool BYTES, int H>
__global__ void __launch_bounds__(256) wavefront(const Task* __restrict__ tasks, int ntasks, int* next_task,
                                                 const unsigned char* __restrict__ base,
                                                 const int* __restrict__ tsel, T* rows, int* flags,
                                                 int match, int mismatch, int gap) {
    const int lane = threadIdx.x & 31;
    while (true) {
        int i = 0;
        if (lane == 0) i = atomicAdd(next_task, 1);
        i = __shfl_sync(0xffffffffu, i, 0);
        if (i >= ntasks) return;
        const Task t = tasks[i];
        if (t.kind == KIND_FOLD) fold_task<T, U, H>(t, rows, flags, gap, next_task + 1);
        else strip_task<T, R, U, BYTES, H>(t, base, tsel, rows, flags, match, mismatch, gap, next_task + 1);
        __syncwarp();
    }
}

// Traceback input: each exon's last row (len[e] = n + 1 scores at src[e]) copied to dst[e], so
// the host receives K * (n + 1) scores per case instead of the whole row storage.
template <typename T>
__global__ void gather_rows(const T* __restrict__ rows, const long long* __restrict__ src,
                            const long long* __restrict__ dst, const int* __restrict__ len, int count,
                            T* __restrict__ out) {
    for (int e = blockIdx.x; e < count; e += gridDim.x)
        for (int j = threadIdx.x; j < len[e]; j += blockDim.x) out[dst[e] + j] = rows[src[e] + j];
}
template __global__ void gather_rows<int>(const int*, const long long*, const long long*, const int*, int, int*);
template __global__ void gather_rows<long long>(const long long*, const long long*, const long long*, const int*,
                                                int, long long*);

#define WAVEFRONT(T, R, U, BYTES, H)                                                                \
    template __global__ void wavefront<T, R, U, BYTES, H>(const Task*, int, int*, const unsigned char*, \
                                                             const int*, T*, int*, int, int, int);
#define WAVEFRONT_ALL(T, R, U, BYTES) WAVEFRONT(T, R, U, BYTES, 0) WAVEFRONT(T, R, U, BYTES, 1) WAVEFRONT(T, R, U, BYTES, 2)
WAVEFRONT_ALL(int, 2, 4, true)
WAVEFRONT_ALL(int, 4, 4, true)
WAVEFRONT_ALL(int, 8, 4, true)
WAVEFRONT_ALL(int, 16, 4, true)
WAVEFRONT_ALL(int, 4, 4, false)
WAVEFRONT_ALL(int, 8, 4, false)
WAVEFRONT_ALL(long long, 4, 4, true)
WAVEFRONT_ALL(long long, 4, 4, false)
