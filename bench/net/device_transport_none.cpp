// Built without CUDA: the device backends are never available.
#include "harness/errors.h"
#include "net/device_transport.h"

namespace wb {

std::optional<std::string> device_transport_unavailable(const std::string& backend) {
  return backend + " needs CUDA, and this binary was built without it (configure with WB_CUDA=ON)";
}

DeviceTransport open_device_transport(const std::string& backend, MPI_Comm, std::chrono::milliseconds) {
  throw CallError(backend + ": built without CUDA");
}

}  // namespace wb
