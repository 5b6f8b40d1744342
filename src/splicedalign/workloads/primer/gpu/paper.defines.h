// Generated from splicedalign.workloads.primer.gpu.paper.DEFINES by `python -m splicedalign.kernels headers`; do not edit.
#pragma once
#define PP_THREADS 256
#define PP_C 3
