// Compute emulation on the GPU (built with CUDA only): a kernel that keeps a stream busy for a
// given time, read from the GPU's nanosecond global timer, so no clock-rate calibration is needed
// and the duration holds under any clock boost. One small block: it stands for a layer's time on
// the compute stream without taking the SMs NCCL's kernels need (a real GEMM shares them; a step
// emulated this way is the best case of overlap).
#pragma once

#include <cuda_runtime.h>

namespace wb::kernels {

void busy_for(long long nanoseconds, cudaStream_t stream);

}  // namespace wb::kernels
