// Generated from splicedalign.workloads.nw.gpu.wfa_cluster.DEFINES by `python -m splicedalign.kernels headers`; do not edit.
#pragma once
#define WFA_NULL -1073741824
#define WFA_MAX_THREADS 1024
#define WFA_OP_M 0
#define WFA_OP_X 1
#define WFA_OP_D 2
#define WFA_OP_I 3
#define WFA_CLUSTER 16
#define WFA_GROUP_INTS 34
#define WFA_CONTROL_INTS 4
#define WFA_WALK_DIAGS 16
#define WFA_TAIL_INTS 4
#define WFA_PAD_A 6
#define WFA_PAD_B 7
