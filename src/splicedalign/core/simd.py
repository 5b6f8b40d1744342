"""Explicit SIMD vectors for numba kernels: a vector of ``VECTOR_BYTES`` bytes of int8, int16,
int32 or int64 lanes as a numba type held in registers (LLVM vector values, not arrays), and the
few operations the kernels need, emitted as LLVM's generic vector instructions and intrinsics
(saturating or wrapping add and subtract, signed max, select, lane shift), which lower to
AVX-512 (two zmm per vector), AVX2 or SSE. The sw database search runs int8/int16 lanes across
database sequences; the spliced CPU solvers run int32 lanes across the rows of an exon matrix.

Why not numba's auto-vectorised loops over lane arrays: the lane state (diagonal, up, F,
best) then lives in memory, the vectoriser adds alias checks per query row, and numba has no
saturating small-integer arithmetic; that kernel ran 16-bit lanes at 6.3 GCUPS on one core of
this project's AMD EPYC (Zen 5) against 31-37 GCUPS for 8-bit lanes here (docs/sw.md).

``lookup(table, index)`` is a byte (or word) table lookup per lane: ``vpermb``/``vpermw``
(AVX-512 VBMI/BW) where the target CPU has them; for bytes without VBMI, ``pshufb`` on the
two 16-entry halves and a blend (SSSE3 and up); else one extract/insert per lane (any CPU).
"""

from __future__ import annotations

import llvmlite.binding as llvm
import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, register_model

VECTOR_BYTES = 128  # two zmm: two independent dependency chains per query row (31 -> 37 GCUPS at 8 bits)
LOOKUP_ENTRIES = 32  # a lookup table's first entries that index lanes may address (codes < matrices.CODES)
I32 = ir.IntType(32)


class Lanes(types.Type):
    """``VECTOR_BYTES // (bits / 8)`` signed integer lanes of ``bits`` bits."""

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.count = VECTOR_BYTES * 8 // bits
        self.dtype = getattr(types, f"int{bits}")
        super().__init__(name=f"int{bits}x{self.count}")

    @property
    def llvm(self) -> ir.VectorType:
        return ir.VectorType(ir.IntType(self.bits), self.count)


def lanes(dtype) -> int:
    """Lanes of a vector of ``dtype`` (a NumPy dtype or scalar type)."""
    return VECTOR_BYTES // np.dtype(dtype).itemsize


BY_DTYPE = {t.dtype: t for t in (Lanes(8), Lanes(16), Lanes(32), Lanes(64))}  # the vector type of a lane dtype


@register_model(Lanes)
class _LanesModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, fe_type.llvm)


def _vector_pointer(context, builder, arrty, arr, start, vec: Lanes):
    data = context.make_array(arrty)(context, builder, arr).data
    return builder.bitcast(builder.gep(data, [start]), vec.llvm.as_pointer())


def _array_lanes(arr) -> Lanes | None:
    return BY_DTYPE.get(arr.dtype) if isinstance(arr, types.Array) and arr.layout == "C" else None


@intrinsic
def load(typingctx, arr, start):
    """The vector ``arr.flat[start : start + lanes]`` (no bounds check: the caller's job)."""
    vec = _array_lanes(arr)
    if vec is None or not isinstance(start, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        arr, start = args
        return builder.load(_vector_pointer(context, builder, sig.args[0], arr, start, vec), align=1)
    return vec(arr, start), codegen


@intrinsic
def store(typingctx, arr, start, v):
    """``arr.flat[start : start + lanes] = v`` (no bounds check: the caller's job)."""
    vec = _array_lanes(arr)
    if vec is None or v != vec or not isinstance(start, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        builder.store(args[2], _vector_pointer(context, builder, sig.args[0], args[0], args[1], vec), align=1)
        return context.get_dummy_value()
    return types.none(arr, start, v), codegen


@intrinsic
def splat(typingctx, x):
    """Every lane ``x``; the lane width is ``x``'s (np.int8 ... np.int64)."""
    vec = BY_DTYPE.get(x)
    if vec is None:
        return None

    def codegen(context, builder, sig, args):
        one = builder.insert_element(ir.Constant(vec.llvm, ir.Undefined), args[0], ir.Constant(I32, 0))
        zeros = ir.Constant(ir.VectorType(I32, vec.count), None)
        return builder.shuffle_vector(one, ir.Constant(vec.llvm, ir.Undefined), zeros)
    return vec(x), codegen


def _binary(emit, doc: str):
    """An intrinsic ``op(a, b)`` on two vectors of one Lanes type; ``emit(builder, vec, a, b)``
    makes its LLVM value."""
    @intrinsic
    def op(typingctx, a, b):
        if not isinstance(a, Lanes) or a != b:
            return None

        def codegen(context, builder, sig, args):
            return emit(builder, sig.args[0], *args)
        return a(a, b), codegen
    op.__doc__ = doc
    return op


def _lanewise(name: str, doc: str):
    """An LLVM vector intrinsic ``llvm.<name>.v<count>i<bits>``."""
    def emit(builder, vec, a, b):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vec.llvm, [vec.llvm] * 2),
                                            f"llvm.{name}.v{vec.count}i{vec.bits}")
        return builder.call(fn, [a, b])
    return _binary(emit, doc)


def _instruction(name: str, doc: str):
    """An LLVM instruction (IRBuilder method ``name``)."""
    return _binary(lambda builder, vec, a, b: getattr(builder, name)(a, b), doc)


add = _instruction("add", "a + b per lane (wrapping)")
sub = _instruction("sub", "a - b per lane (wrapping)")
adds = _lanewise("sadd.sat", "a + b per lane, saturating at the lane type's bounds")
subs = _lanewise("ssub.sat", "a - b per lane, saturating at the lane type's bounds")
vmax = _lanewise("smax", "max(a, b) per lane")


@intrinsic
def count(typingctx, v):
    """The lane count of v's type, a compile-time constant."""
    if not isinstance(v, Lanes):
        return None

    def codegen(context, builder, sig, args):
        return ir.Constant(ir.IntType(64), sig.args[0].count)
    return types.int64(v), codegen


@intrinsic
def select_eq(typingctx, a, b, x, y):
    """Per lane: x where a == b, else y."""
    if not isinstance(a, Lanes) or a != b or x != a or y != a:
        return None

    def codegen(context, builder, sig, args):
        return builder.select(builder.icmp_signed("==", args[0], args[1]), args[2], args[3])
    return a(a, b, x, y), codegen


@intrinsic
def shift_in(typingctx, v, x):
    """Lanes moved up by one: lane 0 gets the scalar ``x``, lane w gets v's lane w - 1."""
    if not isinstance(v, Lanes) or not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        vec = sig.args[0]
        one = builder.insert_element(ir.Constant(vec.llvm, ir.Undefined),
                                     context.cast(builder, args[1], sig.args[1], vec.dtype), ir.Constant(I32, 0))
        mask = ir.Constant(ir.VectorType(I32, vec.count), [vec.count] + list(range(vec.count - 1)))
        return builder.shuffle_vector(args[0], one, mask)
    return v(v, x), codegen


@intrinsic
def insert(typingctx, v, lane, x):
    """v with lane ``lane`` (in [0, count)) set to the scalar ``x``."""
    if not isinstance(v, Lanes) or not isinstance(lane, types.Integer) or not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        vec = sig.args[0]
        return builder.insert_element(args[0], context.cast(builder, args[2], sig.args[2], vec.dtype),
                                      context.cast(builder, args[1], sig.args[1], types.int32))
    return v(v, lane, x), codegen


@intrinsic
def extract(typingctx, v, lane):
    """Lane ``lane`` (in [0, count)) of v as a scalar."""
    if not isinstance(v, Lanes) or not isinstance(lane, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.extract_element(args[0], context.cast(builder, args[1], sig.args[1], types.int32))
    return v.dtype(v, lane), codegen


def _target_has(feature: str) -> bool:
    """Whether numba compiles for a CPU with ``feature``: the host's, or with NUMBA_CPU_NAME set
    (a portable cache, say) only what NUMBA_CPU_FEATURES names (then lookup may take the
    per-lane path: a CPU name's implied features are not known here)."""
    name = getattr(numba.config, "CPU_NAME", None)  # numba.config's settings are set at run time
    if name and name != "host":
        features = getattr(numba.config, "CPU_FEATURES", None) or ""
    else:
        features = llvm.get_host_cpu_features().flatten()
    return f"+{feature}" in features.split(",")


def _indices(start: int, count: int) -> ir.Constant:
    """The shuffle mask start, start + 1, ..., start + count - 1."""
    return ir.Constant(ir.VectorType(I32, count), list(range(start, start + count)))


PERMUTES = {8: ("avx512vbmi", "llvm.x86.avx512.permvar.qi.512"), 16: ("avx512bw", "llvm.x86.avx512.permvar.hi.512")}


def _concat(builder, parts):
    while len(parts) > 1:
        both = _indices(0, 2 * parts[0].type.count)
        parts = [builder.shuffle_vector(parts[k], parts[k + 1], both) for k in range(0, len(parts), 2)]
    return parts[0]


def _byte_shuffles(builder, tab, idx, vec: Lanes):
    """Byte lookup by ``pshufb`` (16 entries, the index's low 4 bits) per 16-lane part, once on
    entries 0-15 and once on 16-31, the half chosen by index >= 16 (LLVM merges the 16-byte
    shuffles into vpshufb ymm/zmm). numba compiling for skylake-avx512 (no VBMI) on this
    project's Zen 5, one core: 7.1x pyopal, as fast as vpermb; per-lane extract/insert 2.0x."""
    part = ir.VectorType(ir.IntType(8), 16)
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(part, [part, part]),
                                        "llvm.x86.ssse3.pshuf.b.128")
    parts = [builder.shuffle_vector(idx, idx, _indices(a, 16)) for a in range(0, vec.count, 16)]
    low, high = (_concat(builder, [builder.call(fn, [builder.shuffle_vector(tab, tab, _indices(h, 16)), p])
                                   for p in parts])
                 for h in (0, 16))
    upper = builder.icmp_signed(">", idx, ir.Constant(vec.llvm, [15] * vec.count))
    return builder.select(upper, high, low)


@intrinsic
def lookup(typingctx, table, index):
    """``table[index[w]]`` per lane ``w``: index lanes in [0, LOOKUP_ENTRIES), the table a
    vector whose first LOOKUP_ENTRIES lanes are the entries."""
    if not isinstance(table, Lanes) or table != index:
        return None

    def codegen(context, builder, sig, args):
        tab, idx = args
        vec = sig.args[0]
        feature, name = PERMUTES[vec.bits]
        if _target_has(feature):  # one permute per 512-bit part of the index
            per = 512 // vec.bits
            part = ir.VectorType(ir.IntType(vec.bits), per)
            fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(part, [part, part]), name)
            tab0 = builder.shuffle_vector(tab, tab, _indices(0, per))
            return _concat(builder, [builder.call(fn, [tab0, builder.shuffle_vector(idx, idx, _indices(a, per))])
                                     for a in range(0, vec.count, per)])
        if vec.bits == 8 and _target_has("ssse3"):
            return _byte_shuffles(builder, tab, idx, vec)
        out = ir.Constant(vec.llvm, ir.Undefined)
        for w in range(vec.count):
            k = builder.extract_element(idx, ir.Constant(I32, w))
            k = builder.and_(k, ir.Constant(k.type, LOOKUP_ENTRIES - 1))
            out = builder.insert_element(out, builder.extract_element(tab, builder.zext(k, I32)), ir.Constant(I32, w))
        return out
    return table(table, index), codegen
