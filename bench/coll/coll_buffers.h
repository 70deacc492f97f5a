// The send and receive buffers of a collective, in host memory (MPI) or device memory (NCCL),
// with host-side copies in and out for the data check (checks are not timed).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

namespace wb {

class CollBuffers {
 public:
  virtual ~CollBuffers() = default;
  virtual void* send() = 0;
  virtual void* recv() = 0;
  virtual void write_send(const std::vector<unsigned char>& bytes) = 0;  // from offset 0
  virtual void write_recv(const std::vector<unsigned char>& bytes) = 0;
  virtual std::vector<unsigned char> read_recv() = 0;
};

std::unique_ptr<CollBuffers> make_host_coll_buffers(std::size_t send_bytes, std::size_t recv_bytes);
// Device buffers; throws CallError in a build without CUDA.
std::unique_ptr<CollBuffers> make_device_coll_buffers(std::size_t send_bytes, std::size_t recv_bytes,
                                                      std::chrono::milliseconds timeout);

}  // namespace wb
