// WB_CUDA_CHECK(call): throws wb::CallError naming the call, file, line and CUDA's own message.
#pragma once

#include <cuda_runtime.h>

#include "harness/checked_call.h"

#define WB_CUDA_CHECK(call)                                                                   \
  do {                                                                                        \
    const cudaError_t wb_cuda_rc_ = (call);                                                   \
    if (wb_cuda_rc_ != cudaSuccess)                                                           \
      ::wb::throw_failed_call("CUDA", #call, __FILE__, __LINE__,                              \
                              std::string(cudaGetErrorName(wb_cuda_rc_)) + ": " +             \
                                  cudaGetErrorString(wb_cuda_rc_),                            \
                              static_cast<long>(wb_cuda_rc_));                                \
  } while (0)
