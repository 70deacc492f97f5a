// Built without CUDA: the NCCL executor is never available.
#include <stdexcept>

#include "step/nccl_step_executor.h"

namespace wb::step {

std::optional<std::string> nccl_step_unavailable() { return std::string("built without CUDA and NCCL"); }

std::unique_ptr<StepExecutor> make_nccl_step_executor(MPI_Comm, int, std::chrono::milliseconds, double) {
  throw std::logic_error("the NCCL step executor is not built (no CUDA)");
}

}  // namespace wb::step
