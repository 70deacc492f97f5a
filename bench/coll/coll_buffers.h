// A collective's send and receive buffers, and the data check's work on them, done where the
// buffers live: host buffers on the host with the reference check (coll/collective.h), device
// buffers by kernels on the device (kernels/collective_check.h), so that checking a 16 GiB
// all_reduce copies nothing to the host.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "comm/collective.h"

namespace wb {

class CollBuffers {
 public:
  enum class Which { kSend, kRecv };

  virtual ~CollBuffers() = default;
  virtual void* send() = 0;
  virtual void* recv() = 0;
  // Element `offset + i` of the buffer gets `rank`'s input at index `first_index + i`, i < elements.
  virtual void fill_inputs(Which which, const CheckContext& c, int rank, std::size_t offset, std::size_t first_index,
                           std::size_t elements) = 0;
  // Every byte of the receive buffer 0, a value the check never expects.
  virtual void poison_recv() = 0;
  // One wrong value at element `offset` of the receive buffer (--inject-fault corrupt).
  virtual void plant_wrong_value(const CheckContext& c, int rank, std::size_t offset) = 0;
  // Wrong elements of `rank`'s result, which starts at element `offset` of the receive buffer.
  virtual std::uint64_t count_wrong(const CheckContext& c, int rank, std::size_t offset) = 0;
};

std::unique_ptr<CollBuffers> make_host_coll_buffers(std::size_t send_bytes, std::size_t recv_bytes);
// Device buffers; throws CallError in a build without CUDA. Every device step waits at most `timeout`.
std::unique_ptr<CollBuffers> make_device_coll_buffers(std::size_t send_bytes, std::size_t recv_bytes,
                                                      std::chrono::milliseconds timeout);

}  // namespace wb
