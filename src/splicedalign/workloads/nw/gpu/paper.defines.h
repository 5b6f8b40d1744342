// Generated from splicedalign.workloads.nw.gpu.paper.DEFINES by `python -m splicedalign.kernels headers`; do not edit.
#pragma once
#define TILE 16
