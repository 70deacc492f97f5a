#include "gpu/stream_wait.h"

#include <cstdio>
#include <thread>

#include "comm/mpi_deadline_wait.h"
#include "gpu/checked_cuda.h"
#include "harness/errors.h"

namespace wb {

void wait_stream_with_deadline(cudaStream_t stream, std::chrono::milliseconds timeout,
                               const std::function<std::string()>& what,
                               const std::function<void()>& on_timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  for (unsigned polls = 1;; ++polls) {
    const cudaError_t rc = cudaStreamQuery(stream);
    if (rc == cudaSuccess) return;
    if (rc != cudaErrorNotReady) WB_CUDA_CHECK(rc);
    if (polls % 256 == 0 && Clock::now() > deadline) {
      if (on_timeout) on_timeout();
      throw_timeout(what(), timeout, "a peer rank may have died or hung");
    }
  }
}

}  // namespace wb
