// The CUDA keywords for the host (g++) builds of kernel files that tests drive without a GPU
// (tests/primer_emu, tests/nw_emu): each *_host.cpp includes this, then declares threadIdx,
// blockIdx and __syncthreads as its way of running a block's threads needs. atomicAdd is a
// real atomic (the emulators run a block's threads as std::threads).
#pragma once
struct dim3 { unsigned int x, y, z; };
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __shared__
#define __restrict__
template <class T> static inline T __ldg(const T* p) { return *p; }
template <class T> static inline T __ldcg(const T* p) { return *p; }
static inline void __threadfence() {}  // (a block's threads run one at a time, blocks in turn)
static inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

// ---- a block's threads as fibers ---------------------------------------------------------------
// emu::run_block runs a block's CUDA threads as fibers (ucontext) on the calling thread, one at a
// time: a thread runs until it waits on an emu::Barrier (__syncthreads: the block's; a shuffle or
// ballot: its warp's) or ends, then the next one runs. No OS thread per CUDA thread, so no futex
// wake-ups and no scheduler on a loaded machine between two barrier phases. The threads are taken
// in turn forwards, then backwards: a read of another thread's write without a barrier between
// them meets the old value in one of the two orders. Barriers that cannot all be passed (a thread
// waits where another never comes) abort with a message instead of hanging. A fiber runs until it
// waits: a kernel that spins on another thread's write (no barrier between) would never end here.
#include <sys/mman.h>
#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace emu {
struct Barrier {
    int count = 0;  // threads that wait on it
    int arrived = 0;
    unsigned generation = 0;
};
struct Fiber {
    ucontext_t context;  // its first entry
    void* resume[5];  // where it waits (__builtin_setjmp)
    const Barrier* waits = nullptr;  // on this barrier until it passes `generation`
    unsigned generation = 0;
    bool started = false;
    bool done = false;
};
inline dim3 thread_index;  // the running fiber's threadIdx
inline void* scheduler[5];  // where run_block waits for the running fiber (__builtin_setjmp)
inline std::vector<Fiber> fibers;
inline int running = -1;
inline void (*body)(void*) = nullptr;
inline void* body_data = nullptr;
constexpr size_t STACK = 256 << 10;  // each fiber's stack (touched pages only), its lowest page a guard
inline char* stacks = nullptr;
inline int have = 0;  // stacks mapped

// Arrives at `b` without waiting; true for the last one in, which lets them all go on.
inline bool arrive(Barrier& b) {
    if (++b.arrived < b.count) return false;
    b.arrived = 0;
    ++b.generation;
    return true;
}

// A switch between the scheduler and a fiber: GCC's __builtin_setjmp / __builtin_longjmp (stack
// pointer, frame pointer and a label; no system call), not swapcontext, which saves and sets the
// signal mask with a system call at each switch (half the emulated tests' time went there).
[[noreturn]] __attribute__((noinline)) inline void jump(void** to) { __builtin_longjmp(to, 1); }

__attribute__((noinline)) inline void suspend(Fiber& self) {
    if (__builtin_setjmp(self.resume)) return;  // resumed by run_block
    jump(scheduler);
}

inline void wait(Barrier& b) {
    if (arrive(b)) return;
    Fiber& self = fibers[running];
    self.waits = &b;
    self.generation = b.generation;
    suspend(self);
}

[[noreturn]] inline void start() {
    body(body_data);
    fibers[running].done = true;
    jump(scheduler);
}

// Runs fiber f until it waits or ends.
__attribute__((noinline)) inline void resume(Fiber& f) {
    if (__builtin_setjmp(scheduler)) return;
    if (f.started) jump(f.resume);
    f.started = true;
    setcontext(&f.context);
}

// Runs run() as `threads` CUDA threads of one block, threadIdx.x first, first + 1, ... (in
// thread_index while each one runs).
template <class F>
void run_block(int threads, F& run, unsigned first = 0) {
    if (threads > have) {
        if (stacks) munmap(stacks, STACK * have);
        void* got = mmap(nullptr, STACK * threads, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
        if (got == MAP_FAILED) std::abort();
        stacks = static_cast<char*>(got);
        for (int t = 0; t < threads; ++t) mprotect(stacks + STACK * t, 4096, PROT_NONE);  // overflow: SIGSEGV
        have = threads;
    }
    body = [](void* f) { (*static_cast<F*>(f))(); };
    body_data = &run;
    fibers.assign(threads, Fiber{});
    for (int t = 0; t < threads; ++t) {
        ucontext_t& c = fibers[t].context;
        getcontext(&c);
        c.uc_stack.ss_sp = stacks + STACK * t + 4096;
        c.uc_stack.ss_size = STACK - 4096;
        c.uc_link = nullptr;  // (start never returns)
        makecontext(&c, start, 0);
    }
    int left = threads;
    for (bool forwards = true; left > 0; forwards = !forwards) {
        bool ran = false;
        for (int i = 0; i < threads; ++i) {
            const int t = forwards ? i : threads - 1 - i;
            Fiber& f = fibers[t];
            if (f.done || (f.waits && f.waits->generation == f.generation)) continue;
            f.waits = nullptr;
            running = t;
            thread_index = {first + unsigned(t), 0, 0};
            resume(f);
            ran = true;
            left -= f.done;
        }
        if (!ran) {
            std::fprintf(stderr, "emulated block of %d threads: %d wait on barriers that cannot pass\n", threads, left);
            std::abort();
        }
    }
    running = -1;
}
}  // namespace emu
