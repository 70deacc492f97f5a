// MessageBuffers in host memory (the `mpi` backend), each on a page boundary (harness/
// page_aligned_buffer.h): the send buffer, and every receive slot of a message of a page or more.
#pragma once

#include "harness/page_aligned_buffer.h"
#include "net/message_buffers.h"

namespace wb {

class HostMessageBuffers final : public MessageBuffers {
 public:
  HostMessageBuffers(std::size_t bytes, std::size_t slots);
  void* send_buffer() override { return send_.data(); }
  void* receive_slot(std::size_t slot) override { return receive_.data() + slot * stride_; }
  std::size_t slots() const override { return slots_; }
  std::size_t bytes() const override { return bytes_; }
  void fill_send(std::uint64_t sample) override;
  void poison_receive(std::uint64_t sample) override;
  std::uint64_t count_wrong_received(std::uint64_t sample) override;
  void corrupt_one_received_byte() override;

 private:
  std::size_t bytes_, slots_;
  std::size_t stride_;  // from one receive slot to the next
  PageAlignedBuffer send_, receive_;
};

}  // namespace wb
