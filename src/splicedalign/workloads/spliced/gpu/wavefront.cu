// `gpu` solver: a whole batch of test cases in one persistent launch.
//
// Work comes as a list of tasks in an order consistent with every case's dependencies; warps
// take tasks in that order from one atomic counter, so whatever a task waits on was taken
// earlier by a warp that is running: spinning on it cannot deadlock. Two task kinds (the task
// record and the constants shared with the host are defined in plan.py, passed as -D macros):
//  * strip: up to 32*R consecutive rows of one exon (R = the strip's lane_rows). Lane l holds R rows in registers and
//    sweeps the target's columns COLS at a time, COLS columns behind lane l-1 (a wavefront
//    inside the warp, handed down by shuffles). The entry row enters as its producers publish
//    it; lane 31 publishes the strip's bottom row. Rows of a strip are aligned to its bottom,
//    so the exon's last row is always lane 31's register R-1; rows above the exon (padding)
//    copy the entry row unchanged.
//  * fold: M_q = max(M_{q-1}, last row of the q-th exon by `last`) (SPEC section 2, running
//    max), M_{-1} being the chain-start row -gap*j.
// A task's entry row is max(in, in2) of its two input rows (in absent: the chain-start row;
// in2 absent: in alone), so an exon's first strip combines M_{p-2} with the last row of the
// (p-1)-th exon by `last` itself instead of waiting for fold p-1: on a dependent chain the row
// that arrives last is that exon's, and the hand-off is strip -> strip.
// Every row has a progress flag: how many of its leading columns are in global memory.
//
// Inside a strip, scores are shifted: h' = h + gap*(c + j), c = rows of the exon in the strip
// so far. Then S = max(diag + w + 2gap, up, left) for an exon row, and
// S = max(diag + w', up, left) with w' <= 0 for a padding row: one max, one add-max (DPX
// __viaddmax_s32 on sm_90) and the profile look-up per cell. The profile look-up is one PRMT:
// a row's base letter is fixed, so its shifted scores against target codes 0..7 are eight
// signed bytes in two registers, and each column's selector (target code plus sign
// replication) picks one. Scorings whose shifted scores do not fit a byte (BYTES = false)
// compare codes instead: padding rows get PAD_CODE, which no target code equals, and w' = 0.
//
// Entry-row hand-off. A consumer on a dependent chain is usually caught up with its producer,
// so every round trip to L2 on its path is paid at full latency: (1) the entry row is read in
// windows: when the window is used up, one poll of the inputs' flags, then every lane loads
// one of the next <= 32 published column blocks at once (two round trips per window, not one
// per step); (2) the entry row enters at the first lane holding an exon row: lanes above it
// hold only padding rows, which are the identity on entry rows (below), so a short exon's strip
// has less skew and fewer steps; (3) a fold folds whatever both inputs have published (1 to 32
// column blocks) instead of waiting for a fixed width. Waits are bounded: a wait that exceeds
// WAIT_LIMIT cycles sets the error word (the host raises) instead of hanging.
// Padding rows as identity: a shifted entry row e'(j) = e(j) + gap*j is non-decreasing in j
// (every DP row has S(j) >= S(j-1) - gap, and the running max and the chain-start row keep
// that), and a padding row maps e' to its prefix maximum, i.e. to itself.

#include "splicedalign_device.cuh"
#ifndef __CUDACC_RTC__
#include "wavefront.defines.h"  // nvcc builds; NVRTC gets the same macros as -D (plan.kernel_defines)
#endif

namespace {

template <typename T> struct Neg;
template <> struct Neg<int> { static constexpr int v = -(1 << NEG_SHIFT_INT); };
template <> struct Neg<long long> { static constexpr long long v = -(1LL << NEG_SHIFT_WIDE); };

// 2^34 cycles, seconds at any sm_90 clock: orders of magnitude beyond the longest dependent
// chain of a launch the host forms, short enough that a broken hand-off ends the launch.
constexpr long long WAIT_LIMIT = 1LL << 34;

// Wait until the rows behind flags f0 and f1 (f0 == f1 for a single input) have at least `need`
// columns published: lanes 0 and 1 each poll one flag; all lanes return the columns both rows
// have published (warp-uniform). Past WAIT_LIMIT it sets *error and returns `need` (the
// launch's results are then void; the host checks *error and raises).
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

// The 32 high bits of a score (its sign in bit 31).
__device__ __forceinline__ unsigned high_word(int x) { return (unsigned)x; }
__device__ __forceinline__ unsigned high_word(long long x) { return (unsigned)(x >> 32); }

// COLS consecutive scores from global memory, bypassing L1 (rows are written by other SMs).
// Row offsets are multiples of COLS (plan.ALIGN), so the access is whole 16-byte vectors.
template <typename T> struct Vec { T v[COLS]; };
static_assert((sizeof(int) * COLS) % 16 == 0, "COLS ints must be whole 16-byte vectors");
template <typename T>
__device__ __forceinline__ Vec<T> load_cg(const T* p) {
    Vec<T> out;
    const int4* q = reinterpret_cast<const int4*>(p);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) * COLS / 16); ++i) reinterpret_cast<int4*>(out.v)[i] = __ldcg(q + i);
    return out;
}
template <typename T>
__device__ __forceinline__ void store_vec(T* p, const Vec<T>& x) {
    *reinterpret_cast<Vec<T>*>(p) = x;
}

// The task record (plan.TASK_FIELDS), read field by field at the offsets the host defines.
struct Task {
    int kind, n, tgt, base, rows, lane_rows, in_row, in_flag, in2_row, in2_flag, out_row, moves, out_flag;
};
__device__ __forceinline__ Task load_task(const int* __restrict__ tasks, int i) {
    const int* r = tasks + (long long)i * TASK_FIELDS;
    Task t;
    t.kind = r[TASK_KIND];
    t.n = r[TASK_N];
    t.tgt = r[TASK_TGT];
    t.base = r[TASK_BASE];
    t.rows = r[TASK_ROWS];
    t.lane_rows = r[TASK_LANE_ROWS];
    t.in_row = r[TASK_IN_ROW];
    t.in_flag = r[TASK_IN_FLAG];
    t.in2_row = r[TASK_IN2_ROW];
    t.in2_flag = r[TASK_IN2_FLAG];
    t.out_row = r[TASK_OUT_ROW];
    t.moves = r[TASK_MOVES];
    t.out_flag = i;  // every task owns the flag with its launch index
    return t;
}

// Shifted scores of one base letter against target codes 0..3 (lo) and 4..7 (hi) as bytes.
__device__ __forceinline__ void row_profile(int b, int match2, int mismatch2, unsigned& lo, unsigned& hi) {
    lo = 0;
#pragma unroll
    for (int c = 0; c < 4; ++c) lo |= (unsigned)((c == b ? match2 : mismatch2) & 0xff) << (8 * c);
    hi = (unsigned)(mismatch2 & 0xff) * 0x01010101u;
}

template <typename T, int R, bool BYTES, bool MOVES>
__device__ void strip_task(const Task& t, const unsigned char* __restrict__ base,
                           const int* __restrict__ tsel, T* rows, int* flags, unsigned* moves,
                           int match, int mismatch, int gap, int* error) {
    constexpr int STEPS_BETWEEN_FLAGS = FLAG_COLUMNS / COLS;
    constexpr int MW = (R * COLS * 2 + 31) / 32;  // plan.move_words(R)
    const int lane = threadIdx.x & 31;
    const int n = t.n, exon_rows = t.rows;
    const int pad = 32 * R - exon_rows;  // padding rows on top of the strip
    // The lane that takes the entry row: lanes above it hold only padding rows (their cells
    // are throw-away: nothing they compute reaches lane `head` or below).
    const int head = pad / R;
    unsigned plo[R], phi[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const int rho = lane * R + r;
        const int b = rho < pad ? PAD_CODE : base[t.base + rho - pad];
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
    T x[COLS], xprev = Neg<T>::v;
#pragma unroll
    for (int q = 0; q < COLS; ++q) x[q] = Neg<T>::v;

    const int blocks = (n + COLS) / COLS;  // column blocks of COLS covering 0..n
    const bool has_in = t.in_row != TASK_NONE;  // warp-uniform
    const bool has_in2 = t.in2_row != TASK_NONE;
    const T* in = rows + t.in_row;
    const T* in2 = rows + t.in2_row;
    T* out = rows + t.out_row;
    unsigned* mvout = moves + (long long)t.moves * MOVE_UNIT + lane * MW;  // step u at + u * 32 * MW
    int have = 0;
    // Entry-row window: blocks [.., wend) are held by the lanes (block b in lane b & 31); when
    // step u runs past wend, one poll for block u, then every lane loads its block of the next
    // <= 32 published ones.
    T pre[COLS];
    int wend = 0;
    for (int u = 0; u < blocks + 31 - head; ++u) {
        if (has_in || has_in2) {
            if (u >= wend && u < blocks) {  // warp-uniform
                const int need = min(u * COLS + COLS, n + 1);
                const int* f0 = flags + (has_in ? t.in_flag : t.in2_flag);
                const int avail = wait_pair(f0, has_in2 ? flags + t.in2_flag : f0, have, need, error);
                __syncwarp();  // orders lanes 0/1's acquires before the other lanes' loads
                have = avail;
                wend = min(avail >= n + 1 ? blocks : avail / COLS, u + 32);  // complete blocks
                const int b = u + ((lane - u) & 31);
                if (b < wend) {
                    const int jp = b * COLS;
                    // no `in`: the chain-start row -gap*j, shifted: 0
#pragma unroll
                    for (int q = 0; q < COLS; ++q) pre[q] = 0;
                    if (has_in) {
                        const Vec<T> v = load_cg<T>(in + jp);
#pragma unroll
                        for (int q = 0; q < COLS; ++q) pre[q] = v.v[q] + (T)gap * (jp + q);
                    }
                    if (has_in2) {
                        const Vec<T> v = load_cg<T>(in2 + jp);
#pragma unroll
                        for (int q = 0; q < COLS; ++q) pre[q] = max(pre[q], v.v[q] + (T)gap * (jp + q));
                    }
                }
            }
            T got[COLS];
#pragma unroll
            for (int q = 0; q < COLS; ++q) got[q] = __shfl_sync(0xffffffffu, pre[q], u & 31);
            if (lane == head && u < blocks) {
#pragma unroll
                for (int q = 0; q < COLS; ++q) x[q] = got[q];
            }
        } else if (lane == head && u < blocks) {
#pragma unroll
            for (int q = 0; q < COLS; ++q) x[q] = 0;  // -gap*j shifted by gap*j
        }
        const int j0 = (u - lane + head) * COLS;  // this lane's columns j0 .. j0+COLS-1
        // Outside 0..n a lane computes throw-away cells; a valid selector (code 0) keeps w' a
        // small score there, so the sentinel state cannot grow into a real score.
        int4 s4 = make_int4(SEL_SIGN, SEL_SIGN, SEL_SIGN, SEL_SIGN);
        if (j0 >= 0 && j0 <= n) s4 = __ldg(reinterpret_cast<const int4*>(tsel + t.tgt + j0));
        const int sel[4] = {s4.x, s4.y, s4.z, s4.w};
        static_assert(COLS == 4, "one int4 of selectors per step");
        T o[COLS];
        unsigned mv[MW];
#pragma unroll
        for (int k = 0; k < MW; ++k) mv[k] = 0;
#pragma unroll
        for (int q = 0; q < COLS; ++q) {
            T diag = xprev, up = x[q];
#pragma unroll
            for (int r = 0; r < R; ++r) {
                T w;
                if constexpr (BYTES) w = (T)prmt(plo[r], phi[r], (unsigned)sel[q]);
                else w = (T)(plo[r] == (unsigned)(sel[q] & SEL_CODE_MASK) ? match + 2 * gap : (int)phi[r]);
                const T left = h[r];
                const T vh = max(up, left);
                h[r] = addmax(diag, w, vh);
                if constexpr (MOVES) {
                    // the cell's move as two sign bits shifted in (plan.py, "Moves"): the
                    // diagonal term lost, up lost to left (shifting preserves every comparison)
                    mv[r / 4] = __funnelshift_l(high_word(diag + w - vh), mv[r / 4], 1);
                    mv[r / 4] = __funnelshift_l(high_word(up - left), mv[r / 4], 1);
                }
                diag = left;
                up = h[r];
            }
            xprev = x[q];
            o[q] = h[R - 1];
        }
        if constexpr (MOVES) {  // every lane, every step: one coalesced store per warp
            unsigned* p = mvout + (long long)u * 32 * MW;
            if constexpr (MW == 2) *reinterpret_cast<uint2*>(p) = make_uint2(mv[0], mv[1]);
            else {
#pragma unroll
                for (int k = 0; k < MW; ++k) p[k] = mv[k];
            }
        }
        if (lane == 31 && j0 >= 0 && j0 <= n) {
            Vec<T> v;
#pragma unroll
            for (int q = 0; q < COLS; ++q) v.v[q] = o[q] - (T)gap * (exon_rows + j0 + q);
            store_vec<T>(out + j0, v);
            const int done = min(j0 + COLS, n + 1);
            if (done == n + 1 || ((u + head) % STEPS_BETWEEN_FLAGS) == STEPS_BETWEEN_FLAGS - 1)
                store_release(flags + t.out_flag, done);
        }
#pragma unroll
        for (int q = 0; q < COLS; ++q) x[q] = __shfl_up_sync(0xffffffffu, o[q], 1);
    }
}

// The strip sweep compiled for R and every smaller power of two down to MIN_LANE_ROWS: a strip
// runs with its own lane_rows (the plan's choice, a power of two <= R).
template <typename T, int R, bool BYTES, bool MOVES>
__device__ __forceinline__ void strip_any(const Task& t, const unsigned char* __restrict__ base,
                                          const int* __restrict__ tsel, T* rows, int* flags, unsigned* moves,
                                          int match, int mismatch, int gap, int* error) {
    if constexpr (R > MIN_LANE_ROWS) {
        if (t.lane_rows < R) {
            strip_any<T, R / 2, BYTES, MOVES>(t, base, tsel, rows, flags, moves, match, mismatch, gap, error);
            return;
        }
    }
    strip_task<T, R, BYTES, MOVES>(t, base, tsel, rows, flags, moves, match, mismatch, gap, error);
}

template <typename T>
__device__ void fold_task(const Task& t, T* rows, int* flags, int gap, int* error) {
    const int lane = threadIdx.x & 31;
    const int n = t.n;
    const bool has_in = t.in_row != TASK_NONE;  // M_{q-1}; absent for fold 0
    const T* prev = rows + t.in_row;
    const T* L = rows + t.in2_row;  // the q-th exon's last row, always present
    T* out = rows + t.out_row;
    int have = 0;
    // Columns c0 .. c1-1 per pass: whatever both inputs have published past c0, at least one
    // block, at most 32 (a fold on the critical path lags its inputs by their flag grain only).
    for (int c0 = 0; c0 <= n;) {
        const int need = min(c0 + COLS, n + 1);
        have = wait_pair(flags + t.in2_flag, has_in ? flags + t.in_flag : flags + t.in2_flag, have, need, error);
        const int c1 = min(min(c0 + 32 * COLS, n + 1), have);
        __syncwarp();
        const int j0 = c0 + lane * COLS;  // c1 is a multiple of COLS or n + 1: block j0 is complete
        if (j0 < c1) {
            const Vec<T> a = load_cg<T>(L + j0);
            Vec<T> m;
            if (has_in) {
                const Vec<T> b = load_cg<T>(prev + j0);
#pragma unroll
                for (int q = 0; q < COLS; ++q) m.v[q] = max(a.v[q], b.v[q]);
            } else {
#pragma unroll
                for (int q = 0; q < COLS; ++q) m.v[q] = max(a.v[q], -(T)gap * (j0 + q));
            }
            store_vec<T>(out + j0, m);
        }
        __threadfence();
        __syncwarp();
        if (lane == 0) store_release(flags + t.out_flag, c1);
        c0 = c1;
    }
}

}  // namespace

// next_task[0]: the task counter; next_task[1]: the error word (a bounded wait ran out).
// MOVES: strips also record their cells' moves (plan.py, "Moves") for trace_chains.
template <typename T, int R, bool BYTES, bool MOVES>
__global__ void __launch_bounds__(THREADS, MOVES ? MOVES_MIN_BLOCKS_PER_SM : MIN_BLOCKS_PER_SM) wavefront(const int* __restrict__ tasks, int ntasks, int* next_task,
                                                     const unsigned char* __restrict__ base,
                                                     const int* __restrict__ tsel, T* rows, int* flags,
                                                     unsigned* moves, int match, int mismatch, int gap) {
    const int lane = threadIdx.x & 31;
    while (true) {
        int i = 0;
        if (lane == 0) i = atomicAdd(next_task, 1);
        i = __shfl_sync(0xffffffffu, i, 0);
        if (i >= ntasks) return;
        const Task t = load_task(tasks, i);
        if (t.kind == KIND_FOLD) fold_task<T>(t, rows, flags, gap, next_task + 1);
        else strip_any<T, R, BYTES, MOVES>(t, base, tsel, rows, flags, moves, match, mismatch, gap, next_task + 1);
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

// Device traceback (solver.GpuSolver, device_trace): one warp per case walks back over the
// moves the MOVES wavefront recorded (plan.py, "Moves"), making backtrack.trace_chain's choices:
//  * best exon: the first (by position) whose last row reaches max S(last, n);
//  * from (exon row L, column j_end) every lane follows the same path of moves up to the entry
//    row (row 0), reached at column j0; column 0 only moves up. Each lane holds one move word
//    (its index and value); a move whose word no lane holds reloads all 32: lane t takes the
//    word of the cell t steps ahead in the last move's direction (diagonal, up, or COLS
//    columns left) inside the current strip, so a straight stretch costs one round trip per
//    ~32 moves;
//  * lane (g & 31) keeps move g; every 32 moves and at the end of an exon the lanes write their
//    op codes at once (a diagonal move is a match when the letters are equal); a case's ops are
//    written backwards from the end of its region, so the region ends in forward order;
//  * predecessor: among exons with last < first(k) whose last row equals the entry row at j0,
//    the largest last, then the lowest position; none: the path began at the chain-start row,
//    and j0 leading target letters are against gaps (OP_INS).
// Per case it writes out_case = (chain length, ops), and per chain exon (trace order, from the
// case's first exon slot) out_exon = (position, j0, j_end, ops of the exon).
struct MoveStrip {  // a strip holding exon rows lo+1 .. lo+rows, its moves from word `at`
    long long at;
    int lo, rows, lr, pad, head, mw;
};

__device__ __forceinline__ void load_strip(MoveStrip& st, const int* __restrict__ tasks, int task) {
    const int* tr = tasks + (long long)task * TASK_FIELDS;
    st.rows = tr[TASK_ROWS];
    st.lr = tr[TASK_LANE_ROWS];
    st.lo -= st.rows;
    st.pad = 32 * st.lr - st.rows;
    st.head = st.pad / st.lr;
    st.mw = (st.lr * COLS * 2 + 31) / 32;  // plan.move_words
    st.at = (long long)tr[TASK_MOVES] * MOVE_UNIT;
}

// Word index and bit (plan.move_shift) of the move of exon row r (lo < r <= lo + rows),
// column j >= 0.
__device__ __forceinline__ long long move_index(const MoveStrip& st, int r, int j, int& bit) {
    const int rs = st.pad + (r - st.lo - 1);  // strip row: the padding rows come first
    const int l = rs / st.lr, rr = rs - l * st.lr;
    const int u = j / COLS + l - st.head;  // the step at which lane l computed column j
    const int word_rows = min(st.lr, 4);
    bit = 2 * (word_rows * COLS - 1 - ((j % COLS) * word_rows + rr % 4));
    return st.at + ((long long)u * 32 + l) * st.mw + rr / 4;
}

template <typename T>
__global__ void __launch_bounds__(TRACE_BLOCK_THREADS) trace_chains(
        const long long* __restrict__ cases, int ncases, const int* __restrict__ exons,
        const int* __restrict__ strips, const int* __restrict__ tasks, const T* __restrict__ rows,
        const unsigned char* __restrict__ base, const int* __restrict__ tsel, const unsigned* __restrict__ moves,
        unsigned char* ops, int* out_case, int* out_exon, int gap) {
    const int lane = threadIdx.x & 31;
    const int c = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (c >= ncases) return;
    const long long* cr = cases + (long long)c * TC_FIELDS;
    const int a = (int)cr[TC_EXON0], b = (int)cr[TC_EXON1], n = (int)cr[TC_N];
    const long long tgt = cr[TC_TGT];
    const long long ops_end = cr[TC_OPS];
    const int* ex = exons;
    // best exon: max S(last, n), lowest position among equals
    T best = 0;
    int k = -1;
    for (int e = a + lane; e < b; e += 32) {
        const T v = __ldg(rows + ex[(long long)e * TE_FIELDS + TE_ROW] + n);
        if (k < 0 || v > best) { best = v; k = e; }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const T ob = __shfl_xor_sync(0xffffffffu, best, off);
        const int ok = __shfl_xor_sync(0xffffffffu, k, off);
        if (ok >= 0 && (k < 0 || ob > best || (ob == best && ok < k))) { best = ob; k = ok; }
    }
    int j = n, len = 0;
    long long g = 0;  // ops emitted so far; op g goes to ops[ops_end - 1 - g]
    long long held = -1;  // this lane's move word: index and value
    unsigned word = 0;
    while (true) {
        const int* ek = ex + (long long)k * TE_FIELDS;
        const int first = ek[TE_FIRST], last = ek[TE_LAST], bo = ek[TE_BASE], in = ek[TE_IN], in2 = ek[TE_IN2];
        const int s0 = ek[TE_STRIP0];
        int s = ek[TE_STRIPS];
        int r = last - first + 1, jj = j;
        MoveStrip st;
        st.lo = r;  // no strip loaded: the first move loads the bottom one
        unsigned dir = TR_DIAG;
        const long long g0 = g;
        int pr = 0, pj = 0;
        unsigned pm = 0;
        long long pg = -1;
        auto flush = [&]() {
            if (pg >= 0) {
                unsigned char op = pm == TR_UP ? OP_DEL : pm == TR_LEFT ? OP_INS : OP_MISMATCH;
                if (pm == TR_DIAG && base[bo + pr - 1] == (__ldg(tsel + tgt + pj) & SEL_CODE_MASK)) op = OP_MATCH;
                ops[ops_end - 1 - pg] = op;
            }
            pg = -1;
        };
        while (r > 0) {
            while (r <= st.lo) load_strip(st, tasks, strips[s0 + --s]);  // warp-uniform
            unsigned mv = TR_UP;
            if (jj > 0) {
                int bit;
                const long long want = move_index(st, r, jj, bit);
                unsigned hit = __ballot_sync(0xffffffffu, held == want);
                if (!hit) {
                    const int rt = dir == TR_LEFT ? r : r - lane;
                    const int jt = dir == TR_UP ? jj : dir == TR_LEFT ? jj - COLS * lane : jj - lane;
                    held = -1;
                    if (rt > st.lo && jt >= 1) {
                        int unused;
                        held = move_index(st, rt, jt, unused);
                        word = __ldg(moves + held);
                    }
                    hit = __ballot_sync(0xffffffffu, held == want);  // lane 0 holds it
                }
                const unsigned v = (__shfl_sync(0xffffffffu, word, __ffs(hit) - 1) >> bit) & 3u;
                mv = v < 2 ? TR_DIAG : v == 2 ? TR_UP : TR_LEFT;  // (diagonal lost, up lost)
            }
            if (lane == (int)(g & 31)) { pr = r; pj = jj; pm = mv; pg = g; }
            ++g;
            if ((g & 31) == 0) flush();
            if (mv == TR_DIAG) { --r; --jj; }
            else if (mv == TR_UP) --r;
            else --jj;
            dir = mv;
        }
        flush();
        if (lane == 0) {
            int* o = out_exon + (long long)(a + len) * 4;
            o[0] = k; o[1] = jj; o[2] = j; o[3] = (int)(g - g0);
        }
        ++len;
        // predecessor
        const int j0 = jj;
        T pv = in == TASK_NONE ? -(T)gap * j0 : __ldg(rows + in + j0);
        if (in2 != TASK_NONE) pv = max(pv, __ldg(rows + in2 + j0));
        int bl = -1, be = -1;
        for (int e = a + lane; e < k; e += 32) {
            const int* ee = ex + (long long)e * TE_FIELDS;
            const int le = ee[TE_LAST];
            if (le < first && le > bl && __ldg(rows + ee[TE_ROW] + j0) == pv) { bl = le; be = e; }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            const int ol = __shfl_xor_sync(0xffffffffu, bl, off);
            const int oe = __shfl_xor_sync(0xffffffffu, be, off);
            if (ol > bl || (ol == bl && oe < be)) { bl = ol; be = oe; }
        }
        if (be < 0) {
            for (int i = lane; i < j0; i += 32) ops[ops_end - 1 - g - i] = OP_INS;
            g += j0;
            break;
        }
        k = be;
        j = j0;
    }
    if (lane == 0) { out_case[2 * c] = len; out_case[2 * c + 1] = (int)g; }
}

#ifndef __CUDACC_RTC__
// nvcc builds (CI's compile and spill check) instantiate the shipped variants; NVRTC
// instantiates only the one a launch asks for (solver.variant).
#define WAVEFRONT(T, R, BYTES, MOVES)                                                                   \
    template __global__ void wavefront<T, R, BYTES, MOVES>(const int*, int, int*, const unsigned char*,  \
                                                           const int*, T*, int*, unsigned*, int, int, int);
WAVEFRONT(int, 8, true, false)
WAVEFRONT(int, 8, false, false)
WAVEFRONT(long long, 4, true, false)
WAVEFRONT(long long, 4, false, false)
WAVEFRONT(int, 8, true, true)
WAVEFRONT(int, 8, false, true)
WAVEFRONT(long long, 4, true, true)
WAVEFRONT(long long, 4, false, true)
#define TRACE(T)                                                                                           \
    template __global__ void trace_chains<T>(const long long*, int, const int*, const int*, const int*, const T*, \
                                             const unsigned char*, const int*, const unsigned*, unsigned char*,   \
                                             int*, int*, int);
TRACE(int)
TRACE(long long)
template __global__ void gather_rows<int>(const int*, const long long*, const long long*, const int*, int, int*);
template __global__ void gather_rows<long long>(const long long*, const long long*, const long long*, const int*,
                                                int, long long*);
#endif
