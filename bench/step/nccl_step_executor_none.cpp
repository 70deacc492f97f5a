// Built without CUDA: the NCCL executor is never available.
#include <stdexcept>

#include "step/nccl_step_executor.h"

namespace wb::step {

std::optional<std::string> nccl_step_unavailable() { return std::string("built without CUDA and NCCL"); }

std::unique_ptr<StepExecutor> make_nccl_step_executor(MPI_Comm, int, std::chrono::milliseconds, double) {
  throw std::logic_error("the NCCL step executor is not built (no CUDA)");
}

double measure_step_tflops(int, int, int, std::chrono::milliseconds) {
  throw std::logic_error("the GEMM rate needs CUDA");
}

}  // namespace wb::step
