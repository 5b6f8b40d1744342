#!/bin/bash
# pywfa built on the host that runs it, as a user's `pip install pywfa` builds it there (WFA2-lib's
# Makefile: -O3 -march=native): from its sdist, with no network (the GPU machine has none), its build
# dependencies (setuptools, Cython) given as wheels. The side-by-side benchmarks (scripts/device_nw*.sh,
# benchmarks/nw.py's pywfa rows on the GPU host) time this build, not a wheel built on another CPU
# (docs/gpu-nw.md, "How it is measured").
#   scripts/pywfa_native.sh WHEELS SITE [LOG]
# WHEELS: pywfa-*.tar.gz (`pip download --no-deps --no-binary :all: pywfa==0.6.0`) and, in WHEELS/build,
# wheels of setuptools and cython for the machine's Python (`pip download --only-binary=:all:
# --python-version 3.12 ... setuptools cython`); SITE: the folder it is installed into (put it on
# PYTHONPATH). Exit 0 once `import pywfa` works from SITE. Without WHEELS/build (or where that fails),
# the build uses the machine's own setuptools and Cython (--no-build-isolation).
set -u
WHEELS=$1
SITE=$2
LOG=${3:-/dev/stderr}
BUILT=$(mktemp -d)
unset PYWFA_MARCH  # (pywfa's own switch to a portable level: a user's build has it unset)
{
    echo "host: $(grep -m1 'model name' /proc/cpuinfo); gcc -march=native resolves to:" \
        "$(gcc -march=native -Q --help=target 2>/dev/null | awk '$1 == "-march=" {print $2}')"
    sdist=$(ls "$WHEELS"/pywfa-*.tar.gz | head -1)
    if [ -d "$WHEELS/build" ] && python3 -m pip wheel -v --no-deps --no-index --find-links "$WHEELS/build" \
        -w "$BUILT" "$sdist"; then
        echo "built with build isolation (setuptools, cython from $WHEELS/build)"
    else
        python3 -m pip wheel -v --no-deps --no-index --no-build-isolation -w "$BUILT" "$sdist" || exit 1
        echo "built with the machine's setuptools and cython"
    fi
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
        "$BUILT"/pywfa-*.whl || exit 1
    PYTHONPATH=$SITE python3 -c "import pywfa.align as a; print('pywfa from', a.__file__)" || exit 1
} >"$LOG" 2>&1
