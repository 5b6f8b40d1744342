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
//    max), M_{-1} being the chain-start row: -gap*j, or 0 with free target ends (FREE, a
//    template flag: the global kernels are compiled as without it).
// A task's entry row is max(in, in2, in3) of its input rows (in absent: the chain-start row;
// in2, in3 absent: no such row), so an exon's first strip combines M_{p-2} with the last row of
// the (p-1)-th exon by `last` itself instead of waiting for fold p-1: on a dependent chain the
// row that arrives last is that exon's, and the hand-off is strip -> strip. That entry row is
// fold p-1 itself: where the plan says so (Task::entry_row), the strip writes it, and that fold
// is no task (no warp slot spent trailing its inputs). Where fold p-2 is neither such a row nor
// worth a task (plan.py: the plans with entry folds, THREE below), the strip (or fold) reads
// M_{p-3} and the last rows of the (p-2)-th and (p-1)-th exons by `last` instead.
// Rows validate themselves: row storage starts as EMPTY (every byte EMPTY_BYTE: far below any
// score; the host sets it with a memset before the launch) and each word is written once, so a
// word other than EMPTY is final. Producers store with relaxed stores and no fence; a consumer
// polls the words it needs with relaxed loads (one L2 round trip tells it both whether and what).
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
// windows of up to 32 column blocks, polled one per lane at once and kept from the first in
// order while written (one round trip per window, not one per step), the next window's poll
// in flight while the warp computes this one (shared memory, strip_task); (2) the entry row
// enters at the first lane holding an exon row: lanes above it hold only padding rows, which
// are the identity on entry rows (below), so a short exon's strip has less skew and fewer
// steps; (3) a fold folds whatever its inputs have written (1 to 32 column blocks) instead of
// waiting for a fixed width. Waits are bounded: a wait that exceeds WAIT_LIMIT_CYCLES sets the
// error word (the host raises) instead of hanging.
// Padding rows as identity: a shifted entry row e'(j) = e(j) + gap*j is non-decreasing in j
// (every DP row has S(j) >= S(j-1) - gap, and the running max and the chain-start row keep
// that), and a padding row maps e' to its prefix maximum, i.e. to itself.

#include "splicedalign_device.cuh"
#ifndef __CUDACC_RTC__
#include "wavefront.defines.h"  // nvcc builds; NVRTC gets plan.kernel_defines as -D
#endif

// Task clocks, a profile only (scripts/profile_spliced_tasks.py compiles them in with NVRTC,
// -DTASK_TIMES=<tasks at most>; no shipped kernel has them): per task i, the global timer (ns)
// when a warp took it, when its first input blocks had arrived (a task without inputs: when it
// was taken), when it ended, and (SM << 48 | windows << 32 | ns): a strip's entry-row windows
// after its first and the ns it spent taking them (the poll's wait included), a fold's passes
// and the ns it probed. task_start: the timer when the kernel's first warp started.
// Walk clocks, a profile only too (profile_spliced_tasks.py --walks; -DWALK_TIMES=<walks at
// most>): per trace_chains warp, in the order walks end (walk_count counts them), the global
// timer at its start and end; the ns in its recomputing sweeps (strip_any, MODE_FOLLOW), in its
// moves loops less the sweeps, in its predecessor scans; (exon0 << 32 | n): its case's first
// exon row of the trace table (the case's id across walk launches) and target length;
// (SM << 32 | chain length); (strips swept << 32 | moves taken); the cells swept (strip rows by
// columns 0..jj) and the sweeps' steps.
#if defined(TASK_TIMES) || defined(WALK_TIMES)
__device__ __forceinline__ unsigned long long clock_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#endif
#ifdef TASK_TIMES
__device__ unsigned long long task_times[TASK_TIMES][4];  // global scope: its name unmangled
__device__ unsigned long long task_start;
#define TASK_CLOCK(...) __VA_ARGS__
#else
#define TASK_CLOCK(...)
#endif
#ifdef WALK_TIMES
__device__ unsigned long long walk_times[WALK_TIMES][10];
__device__ unsigned long long walk_count;
#define WALK_CLOCK(...) __VA_ARGS__
#else
#define WALK_CLOCK(...)
#endif

namespace {

template <typename T> struct Neg;
template <> struct Neg<int> { static constexpr int v = -(1 << NEG_SHIFT_INT); };
template <> struct Neg<long long> { static constexpr long long v = -(1LL << NEG_SHIFT_WIDE); };

// EMPTY: what row storage holds before a word is written (plan.empty: every byte EMPTY_BYTE).
template <typename T> struct Empty;
template <> struct Empty<int> { static constexpr int v = (int)(0x01010101u * EMPTY_BYTE); };
template <> struct Empty<long long> {
    static constexpr long long v = (long long)(0x0101010101010101ull * EMPTY_BYTE);
};

// Bounded wait: called once per failed poll; past WAIT_LIMIT_CYCLES it sets *error and returns true
// (the launch's results are then void; the host checks *error and raises).
__device__ __forceinline__ bool gave_up(long long& start, int* error) {
    const long long now = __shfl_sync(0xffffffffu, clock64(), 0);
    if (start < 0) start = now;
    else if (now - start > WAIT_LIMIT_CYCLES) {
        if ((threadIdx.x & 31) == 0) atomicExch(error, 1);
        return true;
    }
    __nanosleep(64);
    return false;
}

// The 32 high bits of a score (its sign in bit 31).
__device__ __forceinline__ unsigned high_word(int x) { return (unsigned)x; }
__device__ __forceinline__ unsigned high_word(long long x) { return (unsigned)(x >> 32); }

// Relaxed (strong, gpu scope) vector accesses to rows other warps write or poll: never torn
// within a score, never cached in L1, never hoisted out of a polling loop.
template <typename T> struct __align__(16) Vec { T v[COLS]; };
static_assert(COLS == 4, "one v4 (int) or two v2 (int64) accesses per column block");
__device__ __forceinline__ Vec<int> load_poll(const int* p) {
    Vec<int> o;
    asm volatile("ld.relaxed.gpu.global.v4.s32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(o.v[0]), "=r"(o.v[1]), "=r"(o.v[2]), "=r"(o.v[3]) : "l"(p) : "memory");
    return o;
}
__device__ __forceinline__ Vec<long long> load_poll(const long long* p) {
    Vec<long long> o;
    asm volatile("ld.relaxed.gpu.global.v2.s64 {%0, %1}, [%2];" : "=l"(o.v[0]), "=l"(o.v[1]) : "l"(p) : "memory");
    asm volatile("ld.relaxed.gpu.global.v2.s64 {%0, %1}, [%2];" : "=l"(o.v[2]), "=l"(o.v[3]) : "l"(p + 2) : "memory");
    return o;
}
__device__ __forceinline__ void store_row(int* p, const Vec<int>& x) {
    asm volatile("st.relaxed.gpu.global.v4.s32 [%0], {%1, %2, %3, %4};"
                 :: "l"(p), "r"(x.v[0]), "r"(x.v[1]), "r"(x.v[2]), "r"(x.v[3]) : "memory");
}
__device__ __forceinline__ void store_row(long long* p, const Vec<long long>& x) {
    asm volatile("st.relaxed.gpu.global.v2.s64 [%0], {%1, %2};" :: "l"(p), "l"(x.v[0]), "l"(x.v[1]) : "memory");
    asm volatile("st.relaxed.gpu.global.v2.s64 [%0], {%1, %2};" :: "l"(p + 2), "l"(x.v[2]), "l"(x.v[3]) : "memory");
}
// An entry-row poll in flight while the warp computes: 16-byte copies global -> shared, cached in
// L2 only (cp.async.cg: every poll reads what other warps' relaxed stores left in L2), completed
// by copy_wait (the issuing lane's copies). Each int word copied is EMPTY or final, as with
// load_poll; int64 rows also rely on an aligned 16-byte copy not tearing an 8-byte score (what
// the hardware does; those variants are compiled and spill-checked, but no checked case has
// needed int64 scores).
__device__ __forceinline__ void copy_async(Vec<int>* dst, const int* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src)
                 : "memory");
}
__device__ __forceinline__ void copy_async(Vec<long long>* dst, const long long* src) {
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d + 16), "l"(src + 2) : "memory");
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void copy_wait() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }

// Each warp's shared memory for its strip's entry row: the poll in flight (one block of each
// input row per lane; the third input's in kernels whose plans have them, THREE), the window
// (block b at b & 31), where the strip writes its entry row (Task::entry_row) and its third
// input row (Task::in3_row; both kept here, not in registers through the sweep).
// Entry rows and folds of three inputs (THREE): in the plans with entry folds (plan.entry_folds: int
// scores, the throughput kernels), whose followers and recomputing walks read them too.
template <typename T, int R> constexpr bool three_inputs = sizeof(T) == sizeof(int) && R <= DENSE_LANE_ROWS;

template <typename T, bool THREE> struct EntryBuffers {
    Vec<T> in[32], in2[32], in3[THREE ? 32 : 1], window[32];
    int entry_row, in3_row;
    TASK_CLOCK(unsigned long long ready, waited, windows;)  // task clocks (lane 0 writes them)
};

template <typename T>
__device__ __forceinline__ bool written(const Vec<T>& x) {
    bool ok = true;
#pragma unroll
    for (int q = 0; q < COLS; ++q) ok &= x.v[q] != Empty<T>::v;
    return ok;
}

// uint32 words of moves per lane and step of a strip of `lane_rows` rows per lane (plan.move_words).
__device__ constexpr int move_words(int lane_rows) { return (lane_rows * COLS * 2 + 31) / 32; }

// The task record (plan.TASK_FIELDS), read field by field at the offsets the host defines.
struct Task {
    int kind, n, tgt, base, rows, lane_rows, in_row, in2_row, in3_row, out_row, moves, entry_row;
};
// Loads through L2 only (ld.global.cg): a fed launch's tasks are copied in while it runs, and
// the non-coherent or L1 copy of a line could predate them (feed.py).
__device__ __forceinline__ Task load_task(const int* __restrict__ tasks, int i) {
    const int* r = tasks + (long long)i * TASK_FIELDS;
    Task t;
    t.kind = __ldcg(r + TASK_KIND);
    t.n = __ldcg(r + TASK_N);
    t.tgt = __ldcg(r + TASK_TGT);
    t.base = __ldcg(r + TASK_BASE);
    t.rows = __ldcg(r + TASK_ROWS);
    t.lane_rows = __ldcg(r + TASK_LANE_ROWS);
    t.in_row = __ldcg(r + TASK_IN_ROW);
    t.in2_row = __ldcg(r + TASK_IN2_ROW);
    t.in3_row = __ldcg(r + TASK_IN3_ROW);
    t.out_row = __ldcg(r + TASK_OUT_ROW);
    t.moves = __ldcg(r + TASK_MOVES);
    t.entry_row = __ldcg(r + TASK_ENTRY_ROW);
    return t;
}

// A fed launch (feed.py): feed[0] is how many tasks the host has copied in so far, feed[1]
// becomes 1 once no more come (a copy after the last count). Whether task i is there to run
// (false: it never comes, or the wait ran out: then *error is set); every lane polls the same
// word (one request), read with acquire order before the task's own loads. Warps past the
// count sleep between polls: thousands of them poll while the host plans. (An acquire at gpu
// scope is CCTL.IVALL, the SM's L1 emptied, at each poll; relaxed polls and one acquire per
// window changed no fed kernel measurably and cost the IL1RAPL1 chain kernel 1.5%: H100.)
__device__ __forceinline__ bool fed(const int* feed, int i, int* error) {
    long long start = -1;
    while (true) {
        unsigned long long f;
        asm volatile("ld.acquire.gpu.global.b64 %0, [%1];" : "=l"(f) : "l"(feed) : "memory");
        if (i < (int)(unsigned)f) return true;
        if (f >> 32) return false;
        if (gave_up(start, error)) return false;
        __nanosleep(FEED_SLEEP_NS);
    }
}

// Shifted scores of one base letter against target codes 0..3 (lo) and 4..7 (hi) as bytes.
__device__ __forceinline__ void row_profile(int b, int match2, int mismatch2, unsigned& lo, unsigned& hi) {
    lo = 0;
#pragma unroll
    for (int c = 0; c < 4; ++c) lo |= (unsigned)((c == b ? match2 : mismatch2) & 0xff) << (8 * c);
    hi = (unsigned)(mismatch2 & 0xff) * 0x01010101u;
}

// Column checkpoints (plan.py, "Column checkpoints"; CKB > 0, compiled only into the kernels that
// store or read them): a score sweep's stores (at: the strip's first, nullptr: none), or where a
// walk's recomputing sweep (MODE_FOLLOW) starts: at block u0 (the block left of its first column,
// throw-away cells; after it each lane takes its rows from the checkpoint at: that column's).
template <typename T> struct Checkpoint {
    T* at;
    int u0;
};

// (A Checkpoint argument only where CKB > 0: an unused one changed the int64 follower's code.)
template <typename T, int R, bool BYTES, int MODE, bool ENTRY, bool THREE, bool FREE, bool EARLY, int CKB,
          typename... At>
__device__ void strip_task(const Task& t, const unsigned char* __restrict__ base,
                           const int* __restrict__ tsel, T* rows, unsigned* moves,
                           int match, int mismatch, int gap, int* error, EntryBuffers<T, THREE>& eb, At... at) {
    static_assert((CKB & (CKB - 1)) == 0 && sizeof...(At) == (CKB > 0), "checkpoints every power of two of blocks");
    constexpr int MW = move_words(R);
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
    // Per-step state, advanced by one column block a step (not recomputed from u: 64-bit
    // address arithmetic every step cost ~10 instructions of ~100): this lane's block
    // bi = u - lane + head (its selectors at sels + bi: one wide multiply-add, against two
    // moves and two adds to keep a pointer), lane 31's output block and its unshift
    // gap * (exon_rows + j0), and this lane's move words.
    int u0 = 0;  // the first step: lane `head` computes block u (a sweep from a checkpoint: from its block)
    if constexpr (CKB > 0 && MODE == MODE_FOLLOW) {
        const Checkpoint<T> ck = (at, ...);
        if (ck.at != nullptr) u0 = ck.u0;
    }
    int bi = head - lane + u0;
    const int4* sels = reinterpret_cast<const int4*>(tsel + t.tgt);
    T* op = out + bi * COLS;
    T unshift = (T)gap * (exon_rows + bi * COLS);
    unsigned* mp = moves + (long long)t.moves * MOVE_UNIT + lane * MW;
    // Entry-row window: blocks [u, wend) lie in eb.window (block b at b & 31), and a poll of the
    // next <= 32 blocks from wend is in flight (eb.in, eb.in2: lane b & 31 copies block b) while
    // the warp computes the window. When step u reaches wend the warp takes that poll: the
    // window becomes the blocks written without a gap from block u, and the next poll goes out
    // at once. On a dependent chain the consumer is caught up with its producer, and a poll
    // issued only when the window is used up would add an L2 round trip to every few steps
    // (a chain's consumer waits about one L2 round trip per hand-off; with the poll in flight the
    // paper set's score kernel took 10.51 ms against 10.60). Block u not written: its lane alone polls until it is.
    const bool has_entry = has_in || has_in2;  // warp-uniform
    if (ENTRY && lane == 0) eb.entry_row = t.entry_row;  // read after a window's __syncwarp
    if constexpr (THREE) {  // (only beside in2: has_entry)
        if (lane == 0) eb.in3_row = t.in3_row;
        __syncwarp();
    }
    // the third input's block b into the poll's buffer, if the task has that input
    auto copy3 = [&](int b) {
        if constexpr (THREE) {
            if (eb.in3_row != TASK_NONE) copy_async(&eb.in3[lane], rows + eb.in3_row + b * COLS);
        }
    };
    auto poll = [&](int from) {
        const int b = from + ((lane - from) & 31);
        if (b < blocks) {
            if (has_in) copy_async(&eb.in[lane], in + b * COLS);
            if (has_in2) copy_async(&eb.in2[lane], in2 + b * COLS);
            copy3(b);
        }
        copy_commit();
    };
    // the shifted entry of block b = jp / COLS from the polled inputs (no `in`: the chain-start
    // row -gap*j, shifted: 0; FREE: 0, shifted: gap*j); whether every input had written it
    auto entry = [&](const Vec<T>& a, const Vec<T>& a2, const Vec<T>& a3, int jp, Vec<T>& e) {
        bool ok = true;
        if constexpr (FREE) {  // max(in or 0, in2), shifted (fewer live registers: int64 spilled)
            ok = (!has_in || written(a)) && (!has_in2 || written(a2));
#pragma unroll
            for (int q = 0; q < COLS; ++q) {
                T v = has_in ? a.v[q] : (T)0;
                if (has_in2) v = max(v, a2.v[q]);
                e.v[q] = v + (T)gap * (jp + q);
            }
        } else {
#pragma unroll
            for (int q = 0; q < COLS; ++q) e.v[q] = 0;
            if (has_in) {
                ok = written(a);
#pragma unroll
                for (int q = 0; q < COLS; ++q) e.v[q] = a.v[q] + (T)gap * (jp + q);
            }
            if (has_in2) {
                ok &= written(a2);
#pragma unroll
                for (int q = 0; q < COLS; ++q) e.v[q] = max(e.v[q], a2.v[q] + (T)gap * (jp + q));
            }
        }
        if constexpr (THREE) {
            if (eb.in3_row != TASK_NONE) {
                ok &= written(a3);
#pragma unroll
                for (int q = 0; q < COLS; ++q) e.v[q] = max(e.v[q], a3.v[q] + (T)gap * (jp + q));
            }
        }
        return ok;
    };
    int wend = u0;
    if (has_entry) poll(u0);
    // A step's first PRMT waits on the load of its selectors. EARLY (the int score kernels, see
    // `wavefront`) loads the next step's as soon as this step's cells are computed, into the
    // registers this step's held, so the step's stores, shuffles and the entry window's check
    // stand between the load and its use. A follower (MODE_FOLLOW), whose few warps per SM are
    // latency-bound, loads them a whole step ahead (`ahead`: it ends 0.5-0.8 ms earlier so; the
    // recording kernel, holding both in registers, ran 9% slower: 15.1 -> 16.5 ms). Otherwise
    // each step loads its own at its start.
    static_assert(!EARLY || MODE != MODE_FOLLOW, "a follower loads its selectors `ahead`");
    const int steps = blocks + 31 - head;
    int4 ahead = make_int4(0, 0, 0, 0), s4 = make_int4(0, 0, 0, 0);
    if constexpr (MODE == MODE_FOLLOW) ahead = __ldg(sels + bi);
    if constexpr (EARLY) s4 = __ldg(sels + bi);
    // Step u's entry-row window taken (u == wend < blocks): wend moves past u.
    auto take_window = [&](int u) {
        const int b = u + ((lane - u) & 31);
        long long start = -1;
        TASK_CLOCK(const unsigned long long w0 = clock_ns();)
        while (true) {
            copy_wait();
            Vec<T> e;
            const bool ok = entry(eb.in[lane], eb.in2[lane], eb.in3[THREE ? lane : 0], b * COLS, e) ||
                            b >= blocks;
            // blocks written in a row from block u (lane u & 31 on): bit 0 is block u. A
            // block's copy that showed it written holds its final scores, so after a
            // probe of block u the other lanes' copies from the last poll still count.
            const unsigned missing = __ballot_sync(0xffffffffu, !ok);
            const unsigned from_u = __funnelshift_r(missing, missing, u & 31);
            if (!(from_u & 1u)) {  // block u written
                __syncwarp();  // the head lane's reads of the last window come first
                eb.window[lane] = e;
                __syncwarp();
                wend = min(u + (from_u ? __ffs(from_u) - 1 : 32), blocks);
                break;
            }
            if (gave_up(start, error)) {
                wend = blocks;
                break;
            }
            if (lane == (u & 31)) {  // block u not written yet: its lane polls it alone
                if (has_in) copy_async(&eb.in[lane], in + b * COLS);
                if (has_in2) copy_async(&eb.in2[lane], in2 + b * COLS);
                copy3(b);
            }
            copy_commit();
        }
        if (wend < blocks) poll(wend);
        TASK_CLOCK(if (lane == 0) {
            const unsigned long long t1 = clock_ns();
            if (u == 0) eb.ready = t1;
            else {
                eb.waited += t1 - w0;
                ++eb.windows;
            }
        })
        // An exon's first strip standing in for fold p_k - 1 (plan.py) writes the window's
        // new blocks unshifted (after the next poll is out: it is on the strip's chain).
        if constexpr (ENTRY) {
            if (eb.entry_row != TASK_NONE && b < wend) {
                Vec<T> m = eb.window[lane];
#pragma unroll
                for (int q = 0; q < COLS; ++q) m.v[q] -= (T)gap * (b * COLS + q);
                store_row(rows + eb.entry_row + b * COLS, m);
            }
        }
    };
    // One step: every lane's column block bi (lane `head` has its entry in x, the others their
    // upper neighbour's bottom row, shuffled down the step before).
    auto step = [&](int u) {
        // this lane's columns j0 = bi * COLS .. j0 + COLS - 1; inside: 0 <= j0 <= n. Outside,
        // a lane computes throw-away cells; the selectors there exist (plan.TARGET_MARGIN) and
        // are valid (code 0), keeping w' a small score, so the sentinel state cannot grow into
        // a real score; an unconditional load costs no selects on every step.
        const bool inside = (unsigned)bi < (unsigned)blocks;
        if constexpr (MODE == MODE_FOLLOW) {
            s4 = ahead;
            if (u + 1 < steps) ahead = __ldg(sels + bi + 1);  // (the margin ends at the last step's)
        } else if constexpr (!EARLY) s4 = __ldg(sels + bi);
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
                if constexpr (MODE != MODE_SCORE) {
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
        if constexpr (EARLY) {
            if (u + 1 < steps) s4 = __ldg(sels + bi + 1);  // the next step's (see EARLY)
        }
        if constexpr (CKB > 0) {
            const Checkpoint<T> ck = (at, ...);
            if (ck.at != nullptr && lane >= head) {  // (lanes above `head`: throw-away cells)
                if constexpr (MODE == MODE_FOLLOW) {
                    if (bi == u0) {  // after the block left of the sweep's first column: the checkpoint's rows
#pragma unroll
                        for (int r = 0; r < R; ++r) h[r] = ck.at[lane * R + r];
                        o[COLS - 1] = h[R - 1];  // the next lane's diagonal at the first column
                    }
                } else if (bi >= 0 && ((bi + 1) & (CKB - 1)) == 0 && (bi + 1) * COLS <= n) {
                    T* p = ck.at + ((long long)((bi + 1) / CKB - 1) * 32 + lane) * R;  // column (bi + 1) * COLS - 1
#pragma unroll
                    for (int r = 0; r < R; ++r) p[r] = h[r];
                }
            }
        }
        if constexpr (MODE != MODE_SCORE) {  // every lane, every step: one coalesced store per warp
            if constexpr (MW == 2) *reinterpret_cast<uint2*>(mp) = make_uint2(mv[0], mv[1]);
            else {
#pragma unroll
                for (int k = 0; k < MW; ++k) mp[k] = mv[k];
            }
        }
        if (MODE != MODE_FOLLOW && lane == 31 && inside) {
            Vec<T> v;
#pragma unroll
            for (int q = 0; q < COLS; ++q) v.v[q] = o[q] - unshift - (T)gap * q;
            store_row(op, v);
        }
#pragma unroll
        for (int q = 0; q < COLS; ++q) x[q] = __shfl_up_sync(0xffffffffu, o[q], 1);
        ++bi;
        op += COLS;
        unshift += (T)gap * COLS;
        mp += 32 * MW;
    };
    // A strip without inputs takes the chain-start row in windows as well (no poll: -gap*j,
    // shifted: 0; FREE: 0, shifted: gap*j), so every strip's steps while lane `head` enters blocks
    // (u < blocks) run window by window in one loop, then the rest (the lanes below it finishing)
    // in another: a step tests nothing but its window's end (no test of has_entry or of blocks).
    // In one loop with those tests an 8-row step was 140 instructions around its 96 cell
    // operations, in this one 126 (sm_90), and a busy SM's steps are issue-bound: the paper set's
    // replay kernel 8.35 -> 7.99 ms, 10 sets 63.4 -> 57.4 ms (H100). (The chain-start row tested
    // in the rest loop instead made two of the compare-path kernels spill.)
    auto start_window = [&](int u) {
        const int b = u + ((lane - u) & 31);
        Vec<T> e;
#pragma unroll
        for (int q = 0; q < COLS; ++q) e.v[q] = FREE ? (T)gap * (b * COLS + q) : (T)0;
        __syncwarp();  // the head lane's reads of the last window come first
        eb.window[lane] = e;
        __syncwarp();
        wend = min(u + 32, blocks);
    };
    int u = u0;
    while (u < blocks) {
        if (has_entry) take_window(u);
        else start_window(u);
        for (; u < wend; ++u) {
            if (lane == head) {
                const Vec<T> e = eb.window[u & 31];
#pragma unroll
                for (int q = 0; q < COLS; ++q) x[q] = e.v[q];
            }
            step(u);
        }
    }
    for (; u < steps; ++u) step(u);  // the lanes below the entry finishing
}

// The strip sweep compiled for R and every smaller power of two down to MIN_LANE_ROWS (int64:
// WIDE_MIN_LANE_ROWS): a strip runs with its own lane_rows (the plan's choice, a power of two <= R).
// ENTRY: the sweeps write entry rows standing in for folds (Task::entry_row), compiled only into
// the kernels whose plans can have them (plan.entry_folds: int scores, the throughput kernels; an
// int64 sweep would spill, and a chain kernel with the store was 2-3% slower: IL1RAPL1 8.07 -> 8.26 ms).
template <typename T, int R, bool BYTES, int MODE, bool ENTRY, bool THREE, bool FREE, bool EARLY, int CKB = 0>
__device__ __forceinline__ void strip_any(const Task& t, const unsigned char* __restrict__ base,
                                          const int* __restrict__ tsel, T* rows, unsigned* moves,
                                          int match, int mismatch, int gap, int* error, EntryBuffers<T, THREE>& eb,
                                          Checkpoint<T> ck = Checkpoint<T>{nullptr, 0}) {
    if constexpr (R > (sizeof(T) == sizeof(int) ? MIN_LANE_ROWS : WIDE_MIN_LANE_ROWS)) {
        if (t.lane_rows < R) {
            strip_any<T, R / 2, BYTES, MODE, ENTRY, THREE, FREE, EARLY, CKB>(t, base, tsel, rows, moves, match, mismatch,
                                                                             gap, error, eb, ck);
            return;
        }
    }
    if constexpr (CKB > 0)
        strip_task<T, R, BYTES, MODE, ENTRY, THREE, FREE, EARLY, CKB>(t, base, tsel, rows, moves, match, mismatch, gap,
                                                                      error, eb, ck);
    else strip_task<T, R, BYTES, MODE, ENTRY, THREE, FREE, EARLY, 0>(t, base, tsel, rows, moves, match, mismatch, gap,
                                                                     error, eb);
}

template <typename T, bool THREE, bool FREE>
__device__ void fold_task(const Task& t, T* rows, int gap, int* error, EntryBuffers<T, THREE>& eb) {
    const int lane = threadIdx.x & 31;
    const int n = t.n;
    const bool has_in = t.in_row != TASK_NONE;  // the fold below with a row; absent: the chain-start row
    const bool has_in3 = THREE && t.in3_row != TASK_NONE;
    const T* prev = rows + t.in_row;
    const T* L = rows + t.in2_row;  // the next exon's last row by `last`, always present
    const T* L3 = rows + t.in3_row;  // where the fold below has no row: the q-th exon's
    T* out = rows + t.out_row;
    // Per pass the 32 blocks from c0, one per lane; the blocks all inputs have written without
    // a gap from c0 (at least one) are folded (a fold on the critical path lags its inputs by a
    // round trip only).
    for (int c0 = 0; c0 <= n;) {
        const int j0 = c0 + lane * COLS;
        long long start = -1;
        TASK_CLOCK(unsigned long long w0 = 0;)
        bool probe = false;  // block c0 was not written: only lane 0 polls
        while (true) {
            bool ok = true;
            Vec<T> m;
            if (j0 <= n && (!probe || lane == 0)) {
                Vec<T> a = load_poll(L + j0);
                ok = written(a);
                if (has_in3) {
                    const Vec<T> a3 = load_poll(L3 + j0);
                    ok &= written(a3);
#pragma unroll
                    for (int q = 0; q < COLS; ++q) a.v[q] = max(a.v[q], a3.v[q]);
                }
                if (has_in) {
                    const Vec<T> b = load_poll(prev + j0);
                    ok &= written(b);
#pragma unroll
                    for (int q = 0; q < COLS; ++q) m.v[q] = max(a.v[q], b.v[q]);
                } else {
#pragma unroll
                    for (int q = 0; q < COLS; ++q) m.v[q] = max(a.v[q], FREE ? (T)0 : -(T)gap * (j0 + q));
                }
            }
            const unsigned missing = __ballot_sync(0xffffffffu, !ok);
            const int ready = probe ? (missing & 1u ? 0 : 1) : missing ? __ffs(missing) - 1 : 32;
            if (ready > 0) {
                if (lane < ready && j0 <= n) store_row(out + j0, m);
                TASK_CLOCK(if (lane == 0) {
                    const unsigned long long t1 = clock_ns();
                    if (c0 == 0) eb.ready = t1;
                    else if (w0) eb.waited += t1 - w0;
                    ++eb.windows;
                })
                c0 += ready * COLS;
                break;
            }
            TASK_CLOCK(if (w0 == 0) w0 = clock_ns();)
            probe = true;
            if (gave_up(start, error)) return;
        }
    }
}

}  // namespace

// next_task[0]: the task counter; next_task[1]: the error word (a bounded wait ran out).
// MODE (plan.py): MODE_SCORE computes rows; MODE_RECORD also records every cell's move (plan.py,
// "Moves") for trace_chains, except in strips whose moves field is TASK_NONE; MODE_FOLLOW only
// records moves, reading the rows a concurrent launch of the same tasks writes (it skips folds
// and writes no row): beside a MODE_SCORE launch bound by its dependent chain, on SMs it leaves
// idle; after a MODE_RECORD launch, for the strips of its longest chains it left unrecorded.
// FREE: free target ends (the chain-start row 0 instead of -gap*j).
// ntasks < 0: a fed launch, its tasks counted in `feed` as the host copies them in (fed);
// else `feed` is not read.
// CKB > 0 (wavefront_checkpoints): the strips with a checkpoint region (ck_at[i] not TASK_NONE)
// store their column checkpoints into ck from ck_at[i].
template <typename T, int R, bool BYTES, int MODE, bool FREE, int CKB>
__device__ __forceinline__ void run_tasks(const int* __restrict__ tasks, int ntasks, int* next_task,
                                          const unsigned char* __restrict__ base, const int* __restrict__ tsel, T* rows,
                                          unsigned* moves, int match, int mismatch, int gap, const int* feed, T* ck,
                                          const long long* __restrict__ ck_at) {
    static_assert(MODE != MODE_RECORD || R <= DENSE_LANE_ROWS, "wider launches record in a follower (solver._launch)");
    constexpr bool ENTRY = sizeof(T) == sizeof(int) && R <= DENSE_LANE_ROWS && MODE != MODE_FOLLOW;
    constexpr bool THREE = three_inputs<T, R>;
    // The score kernels (int) load each step's selectors a step early (strip_task). Measured on the
    // paper set's replays (H100, 5 seeds): at the 2 blocks per SM of a score launch (launch.Tuning.
    // score_blocks_per_sm) 4-7% faster than loading them at the step's start (10 sets: 74.0 ->
    // 64.2 ms; IL1RAPL1, a chain launch at 1 block per SM: 8.06 -> 7.51 ms), but at 3 blocks per
    // SM 6-17% slower, and the recording kernel (3 per SM) 13% slower (14.9 -> 16.9 ms): the
    // kernel ends on its long chains, whose steps get a share of a busy SM, and a step early makes
    // every other warp ready more often. So not in the recording kernel.
    constexpr bool EARLY = MODE == MODE_SCORE && sizeof(T) == sizeof(int);
    const int lane = threadIdx.x & 31;
    __shared__ EntryBuffers<T, THREE> entry_buffers[THREADS / 32];
    EntryBuffers<T, THREE>& eb = entry_buffers[threadIdx.x / 32];
    TASK_CLOCK(if (blockIdx.x == 0 && threadIdx.x == 0) task_start = clock_ns();)
    while (true) {
        int i = 0;
        if (lane == 0) i = atomicAdd(next_task, 1);
        i = __shfl_sync(0xffffffffu, i, 0);
        if (ntasks < 0 ? !fed(feed, i, next_task + 1) : i >= ntasks) return;  // warp-uniform
        const Task t = load_task(tasks, i);
        TASK_CLOCK(const unsigned long long taken = clock_ns();
                   if (lane == 0) { eb.ready = taken; eb.waited = 0; eb.windows = 0; })
        if (t.kind == KIND_FOLD) {
            if (MODE != MODE_FOLLOW) fold_task<T, THREE, FREE>(t, rows, gap, next_task + 1, eb);
        } else if (MODE == MODE_RECORD && t.moves == TASK_NONE) {
            // a long chain's strip, its moves recorded by a follower: at score speed on the chain
            strip_any<T, R, BYTES, MODE_SCORE, ENTRY, THREE, FREE, false>(t, base, tsel, rows, moves, match, mismatch,
                                                                         gap, next_task + 1, eb);
        } else if constexpr (CKB > 0) {
            const long long a = __ldg(ck_at + i);
            strip_any<T, R, BYTES, MODE, ENTRY, THREE, FREE, EARLY, CKB>(t, base, tsel, rows, moves, match, mismatch, gap,
                                                                         next_task + 1, eb,
                                                                         Checkpoint<T>{a == TASK_NONE ? nullptr : ck + a, 0});
        } else strip_any<T, R, BYTES, MODE, ENTRY, THREE, FREE, EARLY>(t, base, tsel, rows, moves, match, mismatch, gap,
                                                                       next_task + 1, eb);
        __syncwarp();
        TASK_CLOCK(if (lane == 0 && i < TASK_TIMES) {
            unsigned sm;
            asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
            task_times[i][0] = taken;
            task_times[i][1] = eb.ready;
            task_times[i][2] = clock_ns();
            task_times[i][3] = (unsigned long long)sm << 48 | min(eb.windows, 0xffffull) << 32 | min(eb.waited, 0xffffffffull);
        })
    }
}

template <typename T, int R, bool BYTES, int MODE, bool FREE>
__global__ void __launch_bounds__(THREADS, R > DENSE_LANE_ROWS ? CHAIN_MIN_BLOCKS_PER_SM : MIN_BLOCKS_PER_SM) wavefront(const int* __restrict__ tasks, int ntasks, int* next_task,
                                                     const unsigned char* __restrict__ base,
                                                     const int* __restrict__ tsel, T* rows, unsigned* moves, int match, int mismatch, int gap,
                                                     const int* feed) {
    run_tasks<T, R, BYTES, MODE, FREE, 0>(tasks, ntasks, next_task, base, tsel, rows, moves, match, mismatch, gap, feed,
                                          nullptr, nullptr);
}

// The score kernel of a traced recomputing throughput launch, storing column checkpoints every CKB
// column blocks (plan.checkpoint_layout: ck_at per task) for its walks (trace_chains_checkpoints).
template <typename T, int R, bool BYTES, bool FREE, int CKB>
__global__ void __launch_bounds__(THREADS, MIN_BLOCKS_PER_SM) wavefront_checkpoints(
        const int* __restrict__ tasks, int ntasks, int* next_task, const unsigned char* __restrict__ base,
        const int* __restrict__ tsel, T* rows, unsigned* moves, int match, int mismatch, int gap, const int* feed, T* ck,
        const long long* __restrict__ ck_at) {
    static_assert(CKB > 0 && R <= DENSE_LANE_ROWS, "a throughput launch's checkpoints");
    run_tasks<T, R, BYTES, MODE_SCORE, FREE, CKB>(tasks, ntasks, next_task, base, tsel, rows, moves, match, mismatch,
                                                  gap, feed, ck, ck_at);
}

// Inputs made on the device from the letters the host uploads (plan.py, "Letters"): every base
// letter's code (lut[0..255]); per case (cases: (tgt, first letter, n, stride) int32) its
// target letters' selectors at tgt + 1 .. tgt + n (code by lut[256..511]), code 0's selector at
// tgt and in the rest of its stride, and before the first case. The host refused every letter
// without a code.
__global__ void encode_inputs(const unsigned char* __restrict__ base_letters, int base_size, unsigned char* base,
                              const unsigned char* __restrict__ target_letters, const int* __restrict__ cases,
                              int ncases, const unsigned char* __restrict__ lut, int* tsel) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < base_size; i += gridDim.x * blockDim.x)
        base[i] = lut[base_letters[i]];
    if (blockIdx.x == 0)
        for (int i = threadIdx.x; i < (ncases ? cases[0] : 0); i += blockDim.x) tsel[i] = SEL_SIGN;
    for (int c = blockIdx.x; c < ncases; c += gridDim.x) {
        const int tgt = cases[4 * c], first = cases[4 * c + 1], n = cases[4 * c + 2], stride = cases[4 * c + 3];
        for (int j = threadIdx.x; j < stride; j += blockDim.x) {
            const int code = j >= 1 && j <= n ? lut[256 + target_letters[first + j - 1]] : 0;
            tsel[tgt + j] = code * SEL_SPREAD | SEL_SIGN;
        }
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

// The warp's maximum of the lanes' (v, i), the lowest i among equal v (i < 0: none), in every lane.
template <typename T>
__device__ __forceinline__ void warp_first_max(T& v, int& i) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const T ov = __shfl_xor_sync(0xffffffffu, v, off);
        const int oi = __shfl_xor_sync(0xffffffffu, i, off);
        if (oi >= 0 && (i < 0 || ov > v || (ov == v && oi < i))) { v = ov; i = oi; }
    }
}

// Free target ends: each exon's final score max_j S(last, j) into best[e] and the first column j
// reaching it into col[e] (exons in the plan's order: the last row of e is len[e] = n + 1 scores
// at src[e]; the host puts the finals in input order), one warp per exon.
template <typename T>
__global__ void last_row_max(const T* __restrict__ rows, const long long* __restrict__ src,
                             const int* __restrict__ len, int count, T* __restrict__ best, int* __restrict__ col) {
    const int lane = threadIdx.x & 31;
    const int warps = (int)(((long long)gridDim.x * blockDim.x) >> 5);
    for (int e = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5); e < count; e += warps) {
        const T* r = rows + src[e];
        const int m = len[e];
        T v = 0;
        int j = -1;  // this lane's first column reaching its maximum (columns lane, lane + 32, ...)
        for (int i = lane; i < m; i += 32) {
            const T x = r[i];
            if (j < 0 || x > v) { v = x; j = i; }
        }
        warp_first_max(v, j);
        if (lane == 0) { best[e] = v; col[e] = j; }
    }
}

// Device traceback (solver.GpuSolver, device_trace): one warp per case walks back over the
// moves a recording wavefront (MODE_RECORD or MODE_FOLLOW) wrote (plan.py, "Moves"), or that it
// recomputes itself (plan.py, "Recomputed moves": a case whose scratch region is not TASK_NONE:
// on entering a strip, at its first move off column 0, the warp sweeps the strip as a follower
// does, R rows per lane and BYTES as its launch's kernel, from its input rows up to the walk's
// column jj only, into the scratch), making backtrack.trace_chain's choices:
//  * best exon: the first (by position) whose last row reaches max S(last, n), column n; FREE
//    (free target ends): the first whose final score best[e] (last_row_max) reaches the max,
//    at the first column col[e] of its last row reaching it;
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
//    and j0 leading target letters are against gaps (OP_INS; none with FREE: they stay unaligned).
// Per case it writes out_case = (chain length, ops), and per chain exon (trace order, from the
// case's first exon slot) out_exon = (position, j0, j_end, ops of the exon).

struct MoveStrip {  // a strip holding exon rows lo+1 .. lo+rows, its moves from word `at`
    long long at;
    int lo, rows, lr, lr_log2, pad, head, mw;  // lr = 1 << lr_log2 rows per lane
};

__device__ __forceinline__ void load_strip(MoveStrip& st, const int* __restrict__ tasks, int task) {
    const int* tr = tasks + (long long)task * TASK_FIELDS;
    st.rows = tr[TASK_ROWS];
    st.lr = tr[TASK_LANE_ROWS];
    st.lr_log2 = __ffs(st.lr) - 1;
    st.lo -= st.rows;
    st.pad = 32 * st.lr - st.rows;
    st.head = st.pad / st.lr;
    st.mw = move_words(st.lr);
    st.at = (long long)tr[TASK_MOVES] * MOVE_UNIT;
}

// Word index and bit (plan.move_shift) of the move of exon row r (lo < r <= lo + rows),
// column j >= 0 (shifts, not divisions: lane rows and COLS are powers of two; this runs once
// per move on the walk's dependent chain).
__device__ __forceinline__ long long move_index(const MoveStrip& st, int r, int j, int& bit) {
    static_assert((COLS & (COLS - 1)) == 0, "COLS is a power of two");
    const unsigned rs = st.pad + (r - st.lo - 1);  // strip row: the padding rows come first
    const int l = rs >> st.lr_log2, rr = rs & (st.lr - 1);
    const int u = (int)((unsigned)j / COLS) + l - st.head;  // the step at which lane l computed column j
    const int word_rows = min(st.lr, 4);
    bit = 2 * (word_rows * COLS - 1 - (int)((unsigned)j % COLS) * word_rows - (rr & 3));
    return st.at + ((long long)u * 32 + l) * st.mw + (rr >> 2);
}

// CKB > 0 (trace_chains_checkpoints): a recomputing sweep starts from the strip's column checkpoint
// (ck from ck_at[task], the score kernel's) at or left of its column less the strip's rows and
// CHECKPOINT_MARGIN (plan.checkpoint_start), and where the path leaves the swept columns the walk
// sweeps again up to its column from twice as far left.
template <typename T, int R, bool BYTES, bool FREE, int CKB>
__device__ __forceinline__ void walk_cases(
        const long long* __restrict__ cases, int ncases, const int* __restrict__ exons,
        const int* __restrict__ strips, const int* __restrict__ tasks, const T* __restrict__ rows,
        const unsigned char* __restrict__ base, const int* __restrict__ tsel, unsigned* moves,
        unsigned char* ops, int* out_case, int* out_exon, int match, int mismatch, int gap,
        const T* __restrict__ best_score, const int* __restrict__ best_col, int* error, const T* __restrict__ ck,
        const long long* __restrict__ ck_at) {
    constexpr bool THREE = three_inputs<T, R>;
    __shared__ EntryBuffers<T, THREE> entry_buffers[TRACE_BLOCK_THREADS / 32];  // a recomputing sweep's
    EntryBuffers<T, THREE>& eb = entry_buffers[threadIdx.x / 32];
    const int lane = threadIdx.x & 31;
    const int c = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (c >= ncases) return;
    // (walk clocks: the start in full, the rest as 32 bits, ns spans modulo 2^32: registers)
    WALK_CLOCK(const unsigned long long w_start = clock_ns();
               unsigned w_sweep = 0, w_moves = 0, w_pred = 0, w_cells = 0, w_steps = 0, w_taken = 0, w_strips = 0;)
    const long long* cr = cases + (long long)c * TC_FIELDS;
    const int a = (int)cr[TC_EXON0], b = (int)cr[TC_EXON1], n = (int)cr[TC_N];
    const long long tgt = cr[TC_TGT];
    const long long ops_end = cr[TC_OPS];
    const int scratch = (int)cr[TC_SCRATCH];  // MOVE_UNIT words; TASK_NONE: the moves were recorded
    const int* ex = exons;
    // best exon: max S(last, n) (FREE: max best_score), lowest position among equals
    T best = 0;
    int k = -1;
    for (int e = a + lane; e < b; e += 32) {
        const T v = FREE ? __ldg(best_score + e) : __ldg(rows + (ex + (long long)e * TE_FIELDS)[TE_ROW] + n);
        if (k < 0 || v > best) { best = v; k = e; }
    }
    warp_first_max(best, k);
    int j = FREE ? __ldg(best_col + k) : n, len = 0;
    long long g = 0;  // ops emitted so far; op g goes to ops[ops_end - 1 - g]
    long long held = -1;  // this lane's move word: index and value
    unsigned word = 0;
    unsigned cur_word = 0;  // the word the path is in, in every lane (the word loop below)
    while (true) {
        const int* ek = ex + (long long)k * TE_FIELDS;
        const int first = ek[TE_FIRST], last = ek[TE_LAST], bo = ek[TE_BASE], in = ek[TE_IN], in2 = ek[TE_IN2],
                  in3 = ek[TE_IN3];
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
        // move mv from cell (r, jj): lane (g & 31) keeps it for the op codes
        auto take = [&](unsigned mv) {
            if (lane == (int)(g & 31)) { pr = r; pj = jj; pm = mv; pg = g; }
            ++g;
            if ((g & 31) == 0) flush();
            dir = mv;
        };
        bool swept = true;  // the strip's moves are there (recomputing: swept since it was entered)
        int c0 = 0, distance = 0;  // (CKB) the first column swept; how far left of its column the sweep began
        WALK_CLOCK(const unsigned w_moves0 = (unsigned)clock_ns();)
        while (r > 0) {
            while (r <= st.lo) {  // warp-uniform
                load_strip(st, tasks, strips[s0 + --s]);
                swept = scratch == TASK_NONE;
                if constexpr (CKB > 0) {
                    c0 = 0;
                    distance = st.rows + CHECKPOINT_MARGIN;
                }
            }
            if (jj == 0) {  // column 0 only moves up
                take(TR_UP);
                --r;
                continue;
            }
            // the strip's moves up to column jj into the scratch (a follower's sweep; only
            // throughput launches recompute: wider ones' walks read what a follower recorded)
            if constexpr (R <= DENSE_LANE_ROWS) {
                if constexpr (CKB > 0) {
                    if (swept && jj < c0) {  // the path left the swept columns: again, from twice as far left
                        swept = false;
                        distance *= 2;
                    }
                }
                if (!swept) {
                    WALK_CLOCK(const unsigned w_sweep0 = (unsigned)clock_ns();)
                    const int task = strips[s0 + s];
                    Task t = load_task(tasks, task);
                    t.n = jj;
                    t.moves = scratch;
                    Checkpoint<T> from{nullptr, 0};
                    if constexpr (CKB > 0) {
                        const long long a = __ldg(ck_at + task);
                        constexpr int width = CKB * COLS;
                        c0 = a == TASK_NONE ? 0 : max(0, jj - distance) / width * width;  // plan.checkpoint_start
                        if (c0 > 0) from = Checkpoint<T>{const_cast<T*>(ck) + a + (long long)(c0 / width - 1) * 32 * st.lr,
                                                         c0 / COLS - 1};
                    }
                    strip_any<T, R, BYTES, MODE_FOLLOW, false, THREE, FREE, false, CKB>(
                        t, base, tsel, const_cast<T*>(rows), moves, match, mismatch, gap, error, eb, from);
                    __syncwarp();  // every lane's words stored before any lane reads them
                    st.at = (long long)scratch * MOVE_UNIT;
                    // (move_index counts steps from 0: the scratch less the steps before the sweep's first)
                    if constexpr (CKB > 0) st.at -= (long long)from.u0 * 32 * st.mw;
                    held = -1;  // the words held were another strip's
                    swept = true;
                    WALK_CLOCK(w_sweep += (unsigned)clock_ns() - w_sweep0;
                               ++w_strips;
                               w_cells += st.rows * (jj - c0 + 1);
                               w_steps += (jj + COLS) / COLS - from.u0 + 31 - st.head;)
                }
            }
            int bit;
            const long long want = move_index(st, r, jj, bit);
            // Always another word than the last move's (the word loop leaves only then): the lane
            // that holds it hands it to all, else every lane reloads.
            unsigned hit = __ballot_sync(0xffffffffu, held == want);
            if (!hit) {  // warp-uniform
                const int rt = dir == TR_LEFT ? r : r - lane;
                const int jt = dir == TR_UP ? jj : dir == TR_LEFT ? jj - COLS * lane : jj - lane;
                held = -1;
                if (rt > st.lo && jt >= (CKB > 0 ? max(c0, 1) : 1)) {  // (a word left of c0: before the scratch)
                    int unused;
                    held = move_index(st, rt, jt, unused);
                    word = __ldcg(moves + held);  // (L2: a recomputing walk's own stores)
                }
                hit = __ballot_sync(0xffffffffu, held == want);  // lane 0 holds it
            }
            cur_word = __shfl_sync(0xffffffffu, word, __ffs(hit) - 1);
            // Every move while the path stays in this word (rows wa of its group of word_rows
            // in one lane, columns wq of one column block; plan.move_shift), with no word index:
            // a path crosses a word in a few moves, and this loop is the walk's dependent chain.
            const int wr_log2 = min(st.lr_log2, 2), wr = 1 << wr_log2;
            const int cell = wr * COLS - 1 - (bit >> 1);  // wq * word_rows + wa
            int wa = cell & (wr - 1), wq = cell >> wr_log2;
            while (true) {
                const unsigned v = (cur_word >> (2 * (wr * COLS - 1 - (wq << wr_log2) - wa))) & 3u;
                const unsigned mv = v < 2 ? TR_DIAG : v == 2 ? TR_UP : TR_LEFT;  // (diagonal lost, up lost)
                take(mv);
                const int up = mv != TR_LEFT, left = mv != TR_UP;
                r -= up;
                wa -= up;
                jj -= left;
                wq -= left;
                if ((wa | wq) < 0 || r <= st.lo || jj == 0) break;  // warp-uniform: the next cell is in another word
                if (CKB > 0 && jj < c0) break;  // or left of the swept columns
            }
        }
        flush();
        WALK_CLOCK(const unsigned w_pred0 = (unsigned)clock_ns();
                   w_moves += w_pred0 - w_moves0;
                   w_taken = (unsigned)g;)
        if (lane == 0) {
            int* o = out_exon + (long long)(a + len) * 4;
            o[0] = k; o[1] = jj; o[2] = j; o[3] = (int)(g - g0);
        }
        ++len;
        // predecessor
        const int j0 = jj;
        T pv = in == TASK_NONE ? (FREE ? (T)0 : -(T)gap * j0) : __ldg(rows + in + j0);
        if (in2 != TASK_NONE) pv = max(pv, __ldg(rows + in2 + j0));
        if (in3 != TASK_NONE) pv = max(pv, __ldg(rows + in3 + j0));
        // The candidates are the case's first p_k exons by last (TE_P; table rows a.. hold them,
        // TE_BY_LAST*), scanned from the largest last down, 32 * PRED_UNROLL at a time with their
        // loads in flight; the first round with a hit holds the predecessor, unless exons of the
        // hit's last go on below the round (among equal lasts the by-last order is by position,
        // so the lowest position is the lowest rank q). The chain's predecessor is mostly among
        // the nearest: one round per chain exon, where scanning every earlier exon took up to
        // K / 128 rounds of two dependent loads each.
        int bl = -1, bq = -1;
        const int* byl = ex + (long long)a * TE_FIELDS;
        for (int q0 = ek[TE_P] - 1; q0 >= 0; q0 -= 32 * PRED_UNROLL) {
            int le[PRED_UNROLL];
            T v[PRED_UNROLL];
#pragma unroll
            for (int i = 0; i < PRED_UNROLL; ++i) {
                const int* r = byl + (long long)max(q0 - lane - 32 * i, 0) * TE_FIELDS;
                le[i] = q0 - lane - 32 * i >= 0 ? r[TE_BY_LAST_LAST] : -1;
                v[i] = __ldg(rows + r[TE_BY_LAST_ROW] + j0);
            }
#pragma unroll
            for (int i = 0; i < PRED_UNROLL; ++i) {
                const int q = q0 - lane - 32 * i;
                if (le[i] >= 0 && v[i] == pv && (le[i] > bl || (le[i] == bl && q < bq))) { bl = le[i]; bq = q; }
            }
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) {
                const int ol = __shfl_xor_sync(0xffffffffu, bl, off);
                const int oq = __shfl_xor_sync(0xffffffffu, bq, off);
                if (ol > bl || (ol == bl && oq < bq)) { bl = ol; bq = oq; }
            }
            const int below = q0 - 32 * PRED_UNROLL;  // the next round's largest last
            if (bl >= 0 && (below < 0 || (byl + (long long)below * TE_FIELDS)[TE_BY_LAST_LAST] < bl)) break;
        }
        const int be = bl >= 0 ? (byl + (long long)bq * TE_FIELDS)[TE_BY_LAST] : -1;
        WALK_CLOCK(w_pred += (unsigned)clock_ns() - w_pred0;)
        if (be < 0) {
            if constexpr (!FREE) {
                for (int i = lane; i < j0; i += 32) ops[ops_end - 1 - g - i] = OP_INS;
                g += j0;
            }
            break;
        }
        k = be;
        j = j0;
    }
    if (lane == 0) { out_case[2 * c] = len; out_case[2 * c + 1] = (int)g; }
    WALK_CLOCK(if (lane == 0) {
        const unsigned long long w_end = clock_ns(), i = atomicAdd(&walk_count, 1ull);
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        if (i < WALK_TIMES) {
            unsigned long long* w = walk_times[i];
            w[0] = w_start;
            w[1] = w_end;
            w[2] = w_sweep;
            w[3] = w_moves - w_sweep;
            w[4] = w_pred;
            w[5] = (unsigned long long)a << 32 | (unsigned)n;
            w[6] = (unsigned long long)sm << 32 | (unsigned)len;
            w[7] = (unsigned long long)w_strips << 32 | w_taken;
            w[8] = w_cells;
            w[9] = w_steps;
        }
    })
}

template <typename T, int R, bool BYTES, bool FREE>
__global__ void __launch_bounds__(TRACE_BLOCK_THREADS) trace_chains(
        const long long* __restrict__ cases, int ncases, const int* __restrict__ exons,
        const int* __restrict__ strips, const int* __restrict__ tasks, const T* __restrict__ rows,
        const unsigned char* __restrict__ base, const int* __restrict__ tsel, unsigned* moves,
        unsigned char* ops, int* out_case, int* out_exon, int match, int mismatch, int gap,
        const T* __restrict__ best_score, const int* __restrict__ best_col, int* error) {
    walk_cases<T, R, BYTES, FREE, 0>(cases, ncases, exons, strips, tasks, rows, base, tsel, moves, ops, out_case, out_exon,
                                     match, mismatch, gap, best_score, best_col, error, nullptr, nullptr);
}

// The walks of a launch whose score kernel stored column checkpoints (wavefront_checkpoints).
template <typename T, int R, bool BYTES, bool FREE, int CKB>
__global__ void __launch_bounds__(TRACE_BLOCK_THREADS) trace_chains_checkpoints(
        const long long* __restrict__ cases, int ncases, const int* __restrict__ exons,
        const int* __restrict__ strips, const int* __restrict__ tasks, const T* __restrict__ rows,
        const unsigned char* __restrict__ base, const int* __restrict__ tsel, unsigned* moves,
        unsigned char* ops, int* out_case, int* out_exon, int match, int mismatch, int gap,
        const T* __restrict__ best_score, const int* __restrict__ best_col, int* error, const T* __restrict__ ck,
        const long long* __restrict__ ck_at) {
    static_assert(CKB > 0 && R <= DENSE_LANE_ROWS, "a throughput launch's recomputing walks");
    walk_cases<T, R, BYTES, FREE, CKB>(cases, ncases, exons, strips, tasks, rows, base, tsel, moves, ops, out_case,
                                       out_exon, match, mismatch, gap, best_score, best_col, error, ck, ck_at);
}

#ifndef __CUDACC_RTC__
// nvcc builds (CI's compile and spill check) instantiate the shipped variants; NVRTC
// instantiates only the one a launch asks for (solver.variant).
#define WAVEFRONT(T, R, BYTES, MODE, FREE)                                                                   \
    template __global__ void wavefront<T, R, BYTES, MODE, FREE>(const int*, int, int*, const unsigned char*,  \
                                                                const int*, T*, unsigned*, int, int, int, \
                                                                const int*);
#define THROUGHPUT_WAVEFRONTS(MODE, FREE)       \
    WAVEFRONT(int, 8, true, MODE, FREE)         \
    WAVEFRONT(int, 8, false, MODE, FREE)        \
    WAVEFRONT(long long, 4, true, MODE, FREE)   \
    WAVEFRONT(long long, 4, false, MODE, FREE)
#define WAVEFRONTS(MODE, FREE)                  \
    THROUGHPUT_WAVEFRONTS(MODE, FREE)           \
    WAVEFRONT(int, 16, true, MODE, FREE)        \
    WAVEFRONT(int, 16, false, MODE, FREE)
#define TRACE(T, R, BYTES, FREE)                                                                         \
    template __global__ void trace_chains<T, R, BYTES, FREE>(                                           \
        const long long*, int, const int*, const int*, const int*, const T*, const unsigned char*, const int*, \
        unsigned*, unsigned char*, int*, int*, int, int, int, const T*, const int*, int*);
#define TRACES(FREE)                    \
    TRACE(int, 8, true, FREE)           \
    TRACE(int, 8, false, FREE)          \
    TRACE(int, 16, true, FREE)          \
    TRACE(int, 16, false, FREE)         \
    TRACE(long long, 4, true, FREE)     \
    TRACE(long long, 4, false, FREE)
#define ENDS(FREE)                         \
    WAVEFRONTS(MODE_SCORE, FREE)           \
    THROUGHPUT_WAVEFRONTS(MODE_RECORD, FREE) \
    WAVEFRONTS(MODE_FOLLOW, FREE)          \
    TRACES(FREE)
ENDS(false)
ENDS(true)
// the recomputing int launches' checkpoint kernels at the shipped interval (plan.CHECKPOINT_BLOCKS)
#define CHECKPOINTS(BYTES, FREE)                                                                                  \
    template __global__ void wavefront_checkpoints<int, 8, BYTES, FREE, CHECKPOINT_BLOCKS>(                      \
        const int*, int, int*, const unsigned char*, const int*, int*, unsigned*, int, int, int, const int*, int*, \
        const long long*);                                                                                        \
    template __global__ void trace_chains_checkpoints<int, 8, BYTES, FREE, CHECKPOINT_BLOCKS>(                   \
        const long long*, int, const int*, const int*, const int*, const int*, const unsigned char*, const int*,  \
        unsigned*, unsigned char*, int*, int*, int, int, int, const int*, const int*, int*, const int*,           \
        const long long*);
CHECKPOINTS(true, false)
CHECKPOINTS(false, false)
CHECKPOINTS(true, true)
CHECKPOINTS(false, true)
template __global__ void last_row_max<int>(const int*, const long long*, const int*, int, int*, int*);
template __global__ void last_row_max<long long>(const long long*, const long long*, const int*, int, long long*,
                                                 int*);
template __global__ void gather_rows<int>(const int*, const long long*, const long long*, const int*, int, int*);
template __global__ void gather_rows<long long>(const long long*, const long long*, const long long*, const int*,
                                                int, long long*);
#endif
