// Generated from splicedalign.workloads.nw.gpu.batch.DEFINES by `python -m splicedalign.kernels headers`; do not edit.
#pragma once
#define BAND_WARPS 4
#define BAND_INF 536870912
#define MODE_GLOBAL 0
#define MODE_PREFIX 1
#define MODE_INFIX 2
#define OP_M 0
#define OP_X 1
#define OP_D 2
#define OP_I 3
