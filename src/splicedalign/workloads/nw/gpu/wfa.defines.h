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
