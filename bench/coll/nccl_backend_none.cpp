// Built without CUDA: NCCL is never available.
#include "coll/nccl_backend.h"
#include "harness/errors.h"

namespace wb {

std::optional<std::string> nccl_unavailable() {
  return std::string("nccl needs CUDA, and this binary was built without it (configure with WB_CUDA=ON)");
}

std::unique_ptr<Communicator> open_nccl(MPI_Comm, std::chrono::milliseconds) {
  throw CallError("nccl: built without CUDA");
}

}  // namespace wb
