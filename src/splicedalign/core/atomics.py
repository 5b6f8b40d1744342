"""Atomic operations on an int64 array's items for compiled (numba) code whose threads share the
array: a flag or counter one thread publishes (``store_release``) and another waits for
(``load_acquire``), a work counter several threads draw from (``fetch_add``). The spliced CPU
solvers' strip pipeline and the nw GPU batch's copying threads use them."""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def load_acquire(typingctx, counters, i):
    """counters[i] read with acquire order: never hoisted out of a loop, and the writes its
    writer made before the matching store_release are visible after it."""
    def codegen(context, builder, sig, args):
        return builder.load_atomic(_item_pointer(context, builder, sig, args), "acquire", 8)
    return types.int64(counters, i), codegen


@intrinsic
def store_release(typingctx, counters, i, value):
    """counters[i] = value with release order (every earlier write is visible first)."""
    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[2], sig.args[2], types.int64)
        builder.store_atomic(value, _item_pointer(context, builder, sig, args), "release", 8)
        return context.get_dummy_value()
    return types.void(counters, i, value), codegen


def _item_pointer(context, builder, sig, args):
    aryty = sig.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    index = context.cast(builder, args[1], sig.args[1], types.intp)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [index])


@intrinsic
def fetch_add(typingctx, counters, i, value):
    """counters[i] += value as one atomic step; returns the value before (a work counter
    several threads draw from)."""
    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[2], sig.args[2], types.int64)
        return builder.atomic_rmw("add", _item_pointer(context, builder, sig, args), value, "seq_cst")
    return types.int64(counters, i, value), codegen
