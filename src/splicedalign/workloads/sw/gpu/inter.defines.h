// Generated from splicedalign.workloads.sw.gpu.plan.DEFINES by `python -m splicedalign.kernels headers`; do not edit.
#pragma once
#define SW_CODES 25
#define SW_PAD_ROW 24
#define SW_BLOCK 128
