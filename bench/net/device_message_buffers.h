// MessageBuffers in device memory, checked by the CUDA kernels of kernels/data_pattern.cu.
#pragma once

#include <cuda_runtime.h>

#include <chrono>

#include "net/message_buffers.h"

namespace wb {

class DeviceMessageBuffers final : public MessageBuffers {
 public:
  DeviceMessageBuffers(std::size_t bytes, std::size_t slots, std::chrono::milliseconds timeout);
  ~DeviceMessageBuffers() override;

  void* send_buffer() override { return send_; }
  void* receive_slot(std::size_t slot) override { return receive_ + slot * bytes_; }
  std::size_t slots() const override { return slots_; }
  std::size_t bytes() const override { return bytes_; }
  void fill_send(std::uint64_t sample) override;
  void poison_receive(std::uint64_t sample) override;
  std::uint64_t count_wrong_received(std::uint64_t sample) override;
  void corrupt_one_received_byte() override;

 private:
  void synchronize(const char* what);
  std::size_t bytes_, slots_;
  std::chrono::milliseconds timeout_;
  cudaStream_t stream_ = nullptr;
  unsigned char* send_ = nullptr;
  unsigned char* receive_ = nullptr;
  unsigned long long* device_counter_ = nullptr;
  unsigned long long* host_counter_ = nullptr;  // pinned
};

}  // namespace wb
