// Waiting for a CUDA stream with a deadline (cudaStreamSynchronize would wait forever on a peer
// that never arrives in an NCCL call).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <functional>
#include <string>

namespace wb {

// Polls cudaStreamQuery; throws TimeoutError "<what> did not complete within N s" at the
// deadline (after calling `on_timeout`, e.g. to abort an NCCL communicator).
void wait_stream_with_deadline(cudaStream_t stream, std::chrono::milliseconds timeout,
                               const std::function<std::string()>& what,
                               const std::function<void()>& on_timeout = {});

}  // namespace wb
