// Generated from splicedalign.workloads.nw.gpu.wfa.DEFINES by `python -m splicedalign.kernels headers`; do not edit.
#pragma once
#define WFA_NULL -1073741824
#define WFA_DESC 7
#define WFA_OUT 4
#define WFA_MAX_THREADS 1024
#define MODE_GLOBAL 0
#define MODE_PREFIX 1
#define MODE_INFIX 2
#define WFA_OP_M 0
#define WFA_OP_X 1
#define WFA_OP_D 2
#define WFA_OP_I 3
#define WFA_PAD_WORDS 4
#define WFA_WALK_DIAGS 16
#define WFA_PAD_A 6
#define WFA_PAD_B 7
#define WFA_POOL_CHUNKS 8
#define NW_WFA_INSTANCES(X) \
    X(false, false, false, false) \
    X(false, false, true, false) \
    X(false, true, false, false) \
    X(false, true, false, true) \
    X(false, true, true, false) \
    X(false, true, true, true) \
    X(true, false, false, false) \
    X(true, false, true, false) \
    X(true, true, false, false) \
    X(true, true, false, true) \
    X(true, true, true, false) \
    X(true, true, true, true)
#define NW_BIWFA_INSTANCES(X) \
    X(false) \
    X(true)
#define NW_WFA_ROUND_INSTANCES(X) \
    X(false, false) \
    X(false, true) \
    X(true, false) \
    X(true, true)
