"""numba's cached functions loaded without parsing their shared bitcode (core.jit.start): the names
a library defines read from its object code's ELF symbol table are the names numba reads from the
bitcode, and a function loaded so still links into code compiled later."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import njit

from splicedalign.core import jit


@njit
def _inner(a):
    return a * 3 + 1


@njit
def _outer(n):
    out = np.empty(n, np.int64)  # NRT allocation
    for i in range(n):
        out[i] = _inner(i)
    return out.sum(), str(n)  # a call into numba's helpers, a unicode constant


def _bitcode_names(bitcode: bytes) -> set[str]:
    """What numba's JitEngine._load_defined_symbols takes from the shared module."""
    import llvmlite.binding as ll

    module = ll.parse_bitcode(bitcode)
    return {v.name for values in (module.functions, module.global_variables) for v in values
            if not v.is_declaration}


def test_elf_symbols_are_the_bitcode_names():
    _outer(3)
    for dispatcher in (_outer, _inner):
        library = next(iter(dispatcher.overloads.values())).library
        _, kind, (obj, bitcode) = library.serialize_using_object_code()
        assert kind == "object"
        names = jit.elf_defined_symbols(obj)
        if names is None:
            pytest.skip("numba's object code here is not 64-bit little-endian ELF")
        assert names == _bitcode_names(bitcode)
        assert any(name.startswith("_ZN") for name in names)


def test_not_elf():
    assert jit.elf_defined_symbols(b"MZ\x90\x00" + bytes(100)) is None
    assert jit.elf_defined_symbols(b"\x7fELF\x01\x01" + bytes(100)) is None  # 32-bit


CACHED = '''
import numpy as np
from numba import njit


@njit(cache=True)
def triple(a):
    out = np.empty(a.size, np.int64)
    for i in range(a.size):
        out[i] = 3 * a[i] + 1
    return out
'''

USE = '''
import sys
from splicedalign.core import jit
if sys.argv[1] == "start":
    jit.start()
import numpy as np
from numba import njit
import cachedmod
got = cachedmod.triple(np.arange(5))
library = next(iter(cachedmod.triple.overloads.values())).library
lazy = getattr(library, "_shared_bitcode", None) is not None


@njit
def twice(a):  # compiled here: links the loaded triple's library
    return cachedmod.triple(a) * 2


print(got.tolist(), twice(np.arange(3)).tolist(), cachedmod.triple.stats.cache_hits and 1, lazy,
      library._shared_module is not None)
'''


def test_a_lazily_loaded_function_runs_and_links(tmp_path):
    (tmp_path / "cachedmod.py").write_text(CACHED)
    (tmp_path / "use.py").write_text(textwrap.dedent(USE))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
               NUMBA_CACHE_DIR=str(tmp_path / "cache"))

    def run(mode: str) -> str:
        done = subprocess.run([sys.executable, str(tmp_path / "use.py"), mode], capture_output=True, text=True,
                              env=env, timeout=180, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout.split("\n")[-2]

    assert run("plain").startswith("[1, 4, 7, 10, 13] [2, 8, 14] ")  # compiled and saved
    want = "[1, 4, 7, 10, 13] [2, 8, 14] 1 "
    assert run("plain") == want + "False True"  # numba's own load
    assert run("start") == want + "True True"  # loaded lazily, its bitcode parsed to link twice
