"""Byte-profile (PRMT) path against the compare path and `sequential` on small cases."""

import sys

import numpy as np

from splicedalign.case import Scoring
from splicedalign.gpu import device
from splicedalign.gpu.solver import GpuSolver
from splicedalign.solvers import get_solver

sys.path.insert(0, "tests")
from test_gpu_plan import random_case  # noqa: E402

cp = device.cupy()
k = cp.RawKernel(r'''
extern "C" __global__ void p(const unsigned* lo, const unsigned* hi, const unsigned* sel, int* out) {
    int r; unsigned i = threadIdx.x;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo[0]), "r"(hi[0]), "r"(sel[i]));
    out[i] = r;
}''', "p")
lo = cp.asarray(np.array([0x03030503], dtype=np.uint32)); hi = cp.asarray(np.array([0xFFFFFFFF], dtype=np.uint32))
codes = cp.arange(8, dtype=cp.int32)
sel = ((codes * 0x1111) | 0x8880).astype(cp.uint32)
out = cp.zeros(8, dtype=cp.int32)
k((1,), (8,), (lo, hi, sel, out))
print("prmt", out.get().tolist(), "sel", [hex(v) for v in sel.get().tolist()])
rng = np.random.default_rng(1)
cases = [random_case(rng, f"r{i}") for i in range(200)]
seq = get_solver("sequential")
for scoring in (Scoring(), Scoring(2, -3, 1)):
    want = seq.solve_many(cases, scoring, traceback=False)
    for bp in (True, False):
        got = GpuSolver(byte_profile=bp).solve_many(cases, scoring, traceback=False)
        bad = [c for c, w, g in zip(cases, want, got) if not np.array_equal(w.last_row_scores, g.last_row_scores)]
        print(scoring, "byte" if bp else "compare", "bad", len(bad), [(c.name, c.K, c.n) for c in bad[:4]])
        if bad:
            c = bad[0]
            s = GpuSolver(byte_profile=bp)
            prof_rows = s.last_rows(c, scoring, np.zeros((1, 1), np.int32))
            from splicedalign.solvers.kernels_cpu import profile, score_dtype
            w = seq.last_rows(c, scoring, profile(c.target_codes, scoring, np.int32))
            d = np.argwhere(prof_rows != w)
            print("  exons", list(zip(c.first_sorted, c.last_sorted)), "first diffs", d[:5].tolist(),
                  "got", prof_rows[0, :8].tolist(), "want", w[0, :8].tolist())
