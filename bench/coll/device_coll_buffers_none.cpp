// Built without CUDA: there are no device buffers.
#include "coll/coll_buffers.h"
#include "harness/errors.h"

namespace wb {
std::unique_ptr<CollBuffers> make_device_coll_buffers(std::size_t, std::size_t, std::chrono::milliseconds) {
  throw CallError("device buffers need CUDA, and this binary was built without it");
}
}  // namespace wb
