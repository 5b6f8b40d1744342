// Generated from splicedalign.workloads.primer.gpu.solver.DEFINES by `python -m splicedalign.kernels headers`; do not edit.
#pragma once
#define PB_THREADS 64
#define PB_OVERFLOW -2
