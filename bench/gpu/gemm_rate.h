// The GPU's matrix rate as a training step sees it: a bf16 GEMM (fp32 accumulation, cuBLAS) of a
// given shape, timed with CUDA events over repetitions after a warm-up. Built with CUDA only.
#pragma once

#include <chrono>

namespace wb {

// TFLOP/s (2 m n k per GEMM) of this rank's current device for an m x k by k x n product.
double measure_gemm_tflops(int m, int n, int k, std::chrono::milliseconds timeout);

}  // namespace wb
