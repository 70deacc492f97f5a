#include <cuda_runtime.h>

#include "comm/mpi_communicator.h"
#include "comm/nccl_communicator.h"
#include "gpu/checked_cuda.h"
#include "gpu/gpu_runtime_info.h"
#include "gpu/local_device.h"
#include "harness/checked_mpi.h"
#include "net/device_message_buffers.h"
#include "net/device_transport.h"


namespace wb {
namespace {

bool mpi_is_cuda_aware() {
#if defined(MPICH) && MPI_VERSION >= 4
  return MPIX_Query_cuda_support() == 1;
#else
  return false;  // unknown: never pretend
#endif
}

}  // namespace

std::optional<std::string> device_transport_unavailable(const std::string& backend) {
  const GpuAvailability gpus = gpu_availability();
  if (gpus.unavailable_reason) return gpus.unavailable_reason;
  if (backend == "mpi-cuda" && !mpi_is_cuda_aware())
    return std::string("the MPI library is not CUDA-aware (MPIX_Query_cuda_support() is 0)");
  return std::nullopt;
}

DeviceTransport open_device_transport(const std::string& backend, MPI_Comm world,
                                      std::chrono::milliseconds timeout) {
  select_local_device(world);
  DeviceTransport transport;
  if (backend == "nccl") transport.comm = std::make_unique<NcclCommunicator>(world, timeout);
  else transport.comm = std::make_unique<MpiCommunicator>(world, timeout, "mpi-cuda");
  transport.make_buffers = [timeout](std::size_t bytes, std::size_t slots) -> std::unique_ptr<MessageBuffers> {
    return std::make_unique<DeviceMessageBuffers>(bytes, slots, timeout);
  };
  return transport;
}

}  // namespace wb
