#include "coll/nccl_backend.h"
#include "comm/nccl_communicator.h"
#include "gpu/gpu_runtime_info.h"
#include "gpu/local_device.h"

namespace wb {

std::optional<std::string> nccl_unavailable() { return gpu_availability().unavailable_reason; }

std::unique_ptr<Communicator> open_nccl(MPI_Comm comm, std::chrono::milliseconds timeout) {
  // The GPU follows the rank's place on its node among all ranks, not within a sub-communicator
  // (in a "rails" split every rank is alone on its node and would pick GPU 0).
  select_local_device(MPI_COMM_WORLD);
  return std::make_unique<NcclCommunicator>(comm, timeout);
}

}  // namespace wb
