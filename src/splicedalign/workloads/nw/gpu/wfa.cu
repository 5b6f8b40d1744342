// The wavefront algorithm (WFA, diagonal transition; Marco-Sola et al. 2021) on the GPU: one
// thread block per pair (a single pair is a batch of one), exact for gap-affine costs with
// match 0 (linear costs: gap-open 0, no I or D), global, prefix and infix modes. The
// recurrences, ranges and source rules are those of the CPU WFA (wfa_kernels.py), which is the
// oracle of the tests.
//
// Diagonal k = h - v, offsets h (letters of b consumed). For each score s (costs divided by
// their gcd on the host), the block computes M[s] (and I[s], D[s]) over diagonals lo(s)..hi(s),
// threads across diagonals, then extends M along matching letters, then one __syncthreads
// ends the step: no launch per score. The range of s depends only on the costs and the lengths:
// hi(s) = min(reach[s], m) (infix: m), lo(s) = max(-reach[s], -n), reach[] from the host
// (wfa.py reach_table; -1 = no wavefront at s). The last RING scores live in a ring of rows
// (shared memory when it fits, else global; I and D: the last e + 1), indexed k + koff; a read outside a row's range is
// NULL, so no row is ever cleared.
//
// Extension: letters packed 4 bits each (16 a 64-bit word; a and b padded with different pad
// letters, so a run never passes an end), 32 letters compared per iteration (3 word loads per
// sequence, a funnel shift, xor, count of trailing zeros), from shared memory when both
// sequences fit beside the ring (measured: from global memory a diagonal cost ~2 us, the
// wavefront's diagonals reading lines all over both sequences, L1 thrashed).
//
// With KEEP, every step's M (and I, D) is also stored in `keep`, a pool shared by the launch's
// pairs: thread 0 takes the room of step s + 1 (one atomicAdd on `pool_top`) during step s, so a
// pair holds what it uses, not what its cap would need; a pair the pool cannot serve gives up.
// Step s starts at bases[s]. Once the end is reached, thread 0 walks the path back from the end (WFA2's backtrace on offsets:
// the source of an M entry is the candidate equal to its offset before extension), writing
// runs (length << 2 | op) from the end backwards, the format batch.cu's nw_band_text reads.

#include "splicedalign_device.cuh"
#ifndef __CUDACC_RTC__
#include "wfa.defines.h"
#endif

namespace {

typedef unsigned long long u64;

struct WfaDesc {
    long long a, b;  // word offsets of the packed sequences in `seqs`
    int n, m;
    long long visits;  // the pair's most diagonals visited (I, D and M count one each) before it gives up
    long long unused, runs;  // (batch.cu's moves offset: none here, the pool hands out room); runs offset
};

__device__ __forceinline__ WfaDesc wfa_desc(const long long* desc, int w) {
    const long long* d = desc + (long long)WFA_DESC * w;
    return WfaDesc{d[0], d[1], int(d[2]), int(d[3]), d[4], d[5], d[6]};
}

// 32 letters from position `pos` of a packed sequence as two words (letters pos..pos+15, +16..+31);
// `s` points to shared or global memory (generic loads)
__device__ __forceinline__ void window32(const u64* s, long long pos, u64& w0, u64& w1) {
    const long long at = pos >> 4;
    const int shift = int(pos & 15) * 4;
    const u64 x0 = s[at], x1 = s[at + 1], x2 = s[at + 2];
    if (shift) {
        w0 = (x0 >> shift) | (x1 << (64 - shift));
        w1 = (x1 >> shift) | (x2 << (64 - shift));
    } else {
        w0 = x0;
        w1 = x1;
    }
}

// The offset after the run of matching letters from (h, v = h - k).
__device__ __forceinline__ int extend(const u64* a, const u64* b, int h, int k) {
    long long v = (long long)h - k;
    while (true) {
        u64 a0, a1, b0, b1;
        window32(a, v, a0, a1);
        window32(b, h, b0, b1);
        const u64 d0 = a0 ^ b0;
        if (d0) return h + ((__ffsll((long long)d0) - 1) >> 2);
        const u64 d1 = a1 ^ b1;
        if (d1) return h + 16 + ((__ffsll((long long)d1) - 1) >> 2);
        h += 32;
        v += 32;
    }
}

struct Range {
    int lo, hi;  // empty when lo > hi
};

__device__ __forceinline__ Range range_of(const int* __restrict__ reach, int s, int n, int m, int mode) {
    if (s < 0) return Range{1, 0};
    const int r = __ldg(reach + s);
    if (r < 0) return Range{1, 0};
    return Range{max(-r, -n), mode == MODE_INFIX ? m : min(r, m)};
}

// The ring: M's last ring_size scores, then I's and D's last e + 1 (gap_ring) scores, rows of
// `stride` ints indexed by k + koff.
struct Ring {
    int* base;
    int ring_size, gap_ring, stride, koff;
    __device__ __forceinline__ int* row(int arr, int s) const {
        const int at = arr == 0 ? s % ring_size : ring_size + (arr - 1) * gap_ring + s % gap_ring;
        return base + (long long)at * stride + koff;
    }
};

// The value of (arr, s, k) in the ring, NULL outside its wavefront.
__device__ __forceinline__ int ring_get(const Ring& ring, const int* reach, int arr, int s, int k, int n, int m,
                                        int mode) {
    const Range r = range_of(reach, s, n, m, mode);
    if (k < r.lo || k > r.hi) return WFA_NULL;
    return ring.row(arr, s)[k];
}

// The value of (arr, s, k) as kept (for the walk back), NULL outside its wavefront.
__device__ __forceinline__ int kept_get(const int* kept, const long long* bases, const int* reach, int arr, int s,
                                        int k, int n, int m, int mode) {
    const Range r = range_of(reach, s, n, m, mode);
    if (k < r.lo || k > r.hi) return WFA_NULL;
    return kept[bases[s] + (long long)arr * (r.hi - r.lo + 1) + (k - r.lo)];
}

__device__ __forceinline__ int valid_h(int h, int m) { return h <= m ? h : WFA_NULL; }
__device__ __forceinline__ int valid_v(int h, int lim) { return h <= lim ? h : WFA_NULL; }
__device__ __forceinline__ int non_negative(int h) { return h >= 0 ? h : WFA_NULL; }

struct Runs {
    unsigned* out;
    int count;
    unsigned last;
    __device__ void emit(unsigned op, int len) {
        if (len <= 0) return;
        if (count && last == op) {
            out[count - 1] += unsigned(len) << 2;
        } else {
            out[count++] = (unsigned(len) << 2) | op;
            last = op;
        }
    }
};

}  // namespace

// One block per pair. desc: WFA_DESC int64 fields per pair (wfa.py). out: WFA_OUT int32 per pair:
// steps (-1: gave up at the pair's cap), end column of b, start column of b, runs.
template <bool AFFINE, bool KEEP>
__global__ void __launch_bounds__(WFA_MAX_THREADS) nw_wfa(
    const u64* __restrict__ seqs, const long long* __restrict__ desc, const int* __restrict__ reach, int mode,
    int x, int o, int e, int max_steps, int ring_size, int stride, int reach_max, int ring_shared, int seqs_shared,
    int* __restrict__ ring_global, int* __restrict__ keep, unsigned long long* __restrict__ pool_top,
    long long pool_ints, long long* __restrict__ bases, unsigned* __restrict__ runs, int* __restrict__ out) {
    extern __shared__ int smem[];
    // the end found at step s: found[s & 1] (two slots: a thread still reading step s's slot
    // after the step's barrier never sees step s + 1's writes)
    static __shared__ u64 found[2];
    static __shared__ long long next_base[2];  // the pool room of step s in next_base[s & 1] (-1: none)
    constexpr int ARRAYS = AFFINE ? 3 : 1;
    const int p = blockIdx.x;
    const int tid = threadIdx.x, threads = blockDim.x;
    const WfaDesc d = wfa_desc(desc, p);
    const int n = d.n, m = d.m;
    const u64* a = seqs + d.a;
    const u64* b = seqs + d.b;
    if (seqs_shared) {  // both sequences into shared memory, after the ring: every extension load
        // then costs ~30 cycles where the wavefront's spread of offsets made them L2 round trips
        const int rows_ints = ring_shared ? (ring_size + 2 * (AFFINE ? e + 1 : 0)) * stride : 0;
        u64* sa = reinterpret_cast<u64*>(smem + ((rows_ints + 1) & ~1));
        const int wa = n / 16 + WFA_PAD_WORDS, wb = m / 16 + WFA_PAD_WORDS;
        u64* sb = sa + wa;
        for (int w = tid; w < wa; w += threads) sa[w] = a[w];
        for (int w = tid; w < wb; w += threads) sb[w] = b[w];
        a = sa;
        b = sb;
    }
    const int koff = min(reach_max, n);  // ring rows hold k = -koff .. at k + koff
    const int gap_ring = AFFINE ? e + 1 : 0;
    const int rows = ring_size + 2 * gap_ring;
    const Ring ring{ring_shared ? smem : ring_global + (long long)p * rows * stride, ring_size, gap_ring, stride, koff};
    int* kept = keep;
    long long* base_of = KEEP ? bases + (long long)p * (max_steps + 1) : nullptr;
    const int oe = o + e;
    const bool ends_free = mode != MODE_GLOBAL;
    const int k_end = m - n;
    // room for `width` diagonals of I, D and M in the pool (-1: it ran out)
    auto take = [&](int width) -> long long {
        const long long size = (long long)ARRAYS * max(width, 0);
        const long long at = (long long)atomicAdd(pool_top, (unsigned long long)size);
        return at + size <= pool_ints ? at : -1;
    };
    if (tid == 0) {
        found[0] = found[1] = ~0ull;
        if (KEEP) next_base[0] = take(range_of(reach, 0, n, m, mode).hi - range_of(reach, 0, n, m, mode).lo + 1);
    }
    __syncthreads();
    long long visited = 0;  // diagonals visited so far (I, D and M count one each)
    bool over = false;
    int s = 0;
    for (;; ++s) {
        const Range r = range_of(reach, s, n, m, mode);
        const int width = r.hi - r.lo + 1;
        const long long base = KEEP ? next_base[s & 1] : 0;
        // the same for every thread: past the pair's cap, or no room left in the pool
        if (s > max_steps || visited + (long long)ARRAYS * max(width, 0) > d.visits || base < 0) {
            over = true;
            break;
        }
        if (KEEP && tid == 0) {
            base_of[s] = base;
            const Range next = range_of(reach, s + 1, n, m, mode);
            next_base[(s + 1) & 1] = take(next.hi - next.lo + 1);
        }
        int* out_m = ring.row(0, s);
        for (int k = r.lo + tid; k <= r.hi; k += threads) {
            int mv, iv = WFA_NULL, dv = WFA_NULL;
            if (s == 0) {
                mv = k;  // row 0: global and prefix start at k = 0; infix anywhere on row 0
            } else {
                const int lim = n + k;  // offsets past it leave the table (v > n)
                int g = ring_get(ring, reach, 0, s - x, k, n, m, mode) + 1;
                g = g <= m && g <= lim ? g : WFA_NULL;
                if (AFFINE) {
                    const int g1 = valid_h(ring_get(ring, reach, 0, s - oe, k - 1, n, m, mode) + 1, m);
                    const int g2 = valid_h(ring_get(ring, reach, 1, s - e, k - 1, n, m, mode) + 1, m);
                    const int d1 = valid_v(ring_get(ring, reach, 0, s - oe, k + 1, n, m, mode), lim);
                    const int d2 = valid_v(ring_get(ring, reach, 2, s - e, k + 1, n, m, mode), lim);
                    iv = non_negative(max(g1, g2));
                    dv = non_negative(max(d1, d2));
                    mv = max(g, max(iv, dv));
                } else {
                    const int gi = valid_h(ring_get(ring, reach, 0, s - e, k - 1, n, m, mode) + 1, m);
                    const int gd = valid_v(ring_get(ring, reach, 0, s - e, k + 1, n, m, mode), lim);
                    mv = max(g, max(gi, gd));
                }
            }
            mv = mv >= 0 ? extend(a, b, mv, k) : WFA_NULL;
            out_m[k] = mv;
            if (AFFINE) {
                ring.row(1, s)[k] = iv;
                ring.row(2, s)[k] = dv;
            }
            if (KEEP) {
                int* row = kept + base + (k - r.lo);
                row[0] = mv;
                if (AFFINE) {
                    row[width] = iv;
                    row[2 * width] = dv;
                }
            }
            if (mv >= 0 && (ends_free ? mv - k == n : k == k_end && mv == m)) {
                atomicMin(&found[s & 1], (u64(unsigned(k + n)) << 32) | unsigned(mv));  // the lowest diagonal
            }
        }
        if (width > 0) visited += (long long)ARRAYS * width;
        __syncthreads();
        if (found[s & 1] != ~0ull) break;
    }
    if (tid != 0) return;
    int* o_p = out + (long long)WFA_OUT * p;
    if (over) {  // gave up
        o_p[0] = -1;
        o_p[1] = o_p[2] = o_p[3] = 0;
        return;
    }
    const u64 end = found[s & 1];
    int k = int(end >> 32) - n;
    int h = int(end & 0xffffffffu);
    o_p[0] = s;
    o_p[1] = h;
    o_p[2] = 0;
    o_p[3] = 0;
    if (!KEEP) return;
    // the walk back: state M (0), I (1) or D (2) at (s, k) with offset h
    Runs w{runs + d.runs, 0, 4u};
    int state = 0;
    while (true) {
        if (state == 0) {
            if (s == 0) {  // row 0: the start offset is k itself
                w.emit(WFA_OP_M, h - k);
                o_p[2] = k;
                break;
            }
            const int lim = n + k;
            int g = kept_get(kept, base_of, reach, 0, s - x, k, n, m, mode) + 1;
            g = g <= m && g <= lim ? g : WFA_NULL;
            int ins, del;
            if (AFFINE) {
                ins = kept_get(kept, base_of, reach, 1, s, k, n, m, mode);
                del = kept_get(kept, base_of, reach, 2, s, k, n, m, mode);
            } else {
                ins = valid_h(kept_get(kept, base_of, reach, 0, s - e, k - 1, n, m, mode) + 1, m);
                del = valid_v(kept_get(kept, base_of, reach, 0, s - e, k + 1, n, m, mode), lim);
            }
            const int before = max(g, max(ins, del));  // the offset before the run of matches
            w.emit(WFA_OP_M, h - before);
            h = before;
            if (before == g) {
                w.emit(WFA_OP_X, 1);
                s -= x;
                h -= 1;
            } else if (before == ins) {
                if (AFFINE) {
                    state = 1;
                } else {
                    w.emit(WFA_OP_I, 1);
                    s -= e;
                    k -= 1;
                    h -= 1;
                }
            } else if (AFFINE) {
                state = 2;
            } else {
                w.emit(WFA_OP_D, 1);
                s -= e;
                k += 1;
            }
        } else if (state == 1) {  // I[s][k] = h: from M[s-o-e][k-1] + 1 (opened) or I[s-e][k-1] + 1
            const int opened = valid_h(kept_get(kept, base_of, reach, 0, s - oe, k - 1, n, m, mode) + 1, m);
            w.emit(WFA_OP_I, 1);
            if (opened == h) {
                s -= oe;
                state = 0;
            } else {
                s -= e;
            }
            k -= 1;
            h -= 1;
        } else {  // D[s][k] = h: from M[s-o-e][k+1] (opened) or D[s-e][k+1]
            const int opened = valid_v(kept_get(kept, base_of, reach, 0, s - oe, k + 1, n, m, mode), n + k);
            w.emit(WFA_OP_D, 1);
            if (opened == h) {
                s -= oe;
                state = 0;
            } else {
                s -= e;
            }
            k += 1;
        }
    }
    o_p[3] = w.count;
}

// The packed sequences: word w of a sequence holds its letters 16 w .. 16 w + 15, 4 bits each,
// `pad` past its end. One block per sequence; bytes[from[q] ..] (size[q] letters) -> words[to[q] ..]
// (words[q] words).
__global__ void nw_wfa_pack(const unsigned char* __restrict__ bytes, const long long* __restrict__ from,
                            const long long* __restrict__ size, const long long* __restrict__ to,
                            const long long* __restrict__ words, const unsigned char* __restrict__ pad,
                            u64* __restrict__ packed) {
    const int q = blockIdx.x;
    const unsigned char* src = bytes + from[q];
    const long long count = size[q];
    const u64 fill = pad[q];
    for (long long w = threadIdx.x; w < words[q]; w += blockDim.x) {
        u64 word = 0;
        for (int j = 0; j < 16; ++j) {
            const long long at = 16 * w + j;
            const u64 letter = at < count ? u64(src[at] & 15) : fill;
            word |= letter << (4 * j);
        }
        packed[to[q] + w] = word;
    }
}

#ifndef __CUDACC_RTC__
// nvcc builds instantiate the shipped variants (wfa.NAMES); NVRTC only the one a launch asks for.
#define NW_WFA(AFFINE, KEEP)                                                                                \
    template __global__ void nw_wfa<AFFINE, KEEP>(const u64*, const long long*, const int*, int, int, int, int, \
                                                  int, int, int, int, int, int, int*, int*, unsigned long long*, \
                                                  long long, long long*, unsigned*, int*);
NW_WFA(false, false)
NW_WFA(false, true)
NW_WFA(true, false)
NW_WFA(true, true)
#endif
