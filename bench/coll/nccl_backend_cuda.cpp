#include "coll/nccl_backend.h"
#include "comm/nccl_communicator.h"
#include "gpu/gpu_runtime_info.h"
#include "gpu/local_device.h"

namespace wb {

std::optional<std::string> nccl_unavailable() { return gpu_availability().unavailable_reason; }

std::unique_ptr<Communicator> open_nccl(MPI_Comm comm, std::chrono::milliseconds timeout) {
  select_local_device(comm);
  return std::make_unique<NcclCommunicator>(comm, timeout);
}

}  // namespace wb
