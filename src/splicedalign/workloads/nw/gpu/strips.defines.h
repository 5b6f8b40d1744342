// Generated from splicedalign.workloads.nw.gpu.solver.DEFINES by `python -m splicedalign.kernels headers`; do not edit.
#pragma once
#define GROUP 4
#define PUBLISH 16
#define WINDOW_MIN 16
#define BAND_R 8
#define TILE_GROUPS 80
#define WALK_RUN 8
#define CKPT_GROUPS 128
