#include "net/device_message_buffers.h"

#include "data_pattern_device.h"
#include "gpu/checked_cuda.h"
#include "gpu/stream_wait.h"

namespace wb {

DeviceMessageBuffers::DeviceMessageBuffers(std::size_t bytes, std::size_t slots, std::chrono::milliseconds timeout)
    : bytes_(bytes), slots_(slots), timeout_(timeout) {
  WB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&send_), bytes + 1));
  WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&receive_), bytes * slots + 1));
  WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&device_counter_), sizeof *device_counter_));
  WB_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&host_counter_), sizeof *host_counter_));
}

DeviceMessageBuffers::~DeviceMessageBuffers() {
  cudaFree(send_);
  cudaFree(receive_);
  cudaFree(device_counter_);
  cudaFreeHost(host_counter_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void DeviceMessageBuffers::synchronize(const char* what) {
  wait_stream_with_deadline(stream_, timeout_, [what] { return std::string(what); });
}

void DeviceMessageBuffers::fill_send(std::uint64_t sample) {
  pattern::device::fill(send_, bytes_, sample, stream_);
  synchronize("filling the send buffer");
}

void DeviceMessageBuffers::poison_receive(std::uint64_t sample) {
  for (std::size_t s = 0; s < slots_; ++s) pattern::device::poison(receive_slot(s), bytes_, sample, stream_);
  synchronize("poisoning the receive buffers");
}

std::uint64_t DeviceMessageBuffers::count_wrong_received(std::uint64_t sample) {
  std::uint64_t wrong = 0;
  for (std::size_t s = 0; s < slots_; ++s) {
    pattern::device::count_wrong_bytes_async(receive_slot(s), bytes_, sample, device_counter_, host_counter_, stream_);
    synchronize("verifying received data");
    wrong += *host_counter_;
  }
  return wrong;
}

void DeviceMessageBuffers::corrupt_one_received_byte() {
  if (bytes_ == 0) return;
  unsigned char value = 0;
  WB_CUDA_CHECK(cudaMemcpy(&value, receive_ + bytes_ / 2, 1, cudaMemcpyDeviceToHost));
  value ^= 0x01;
  WB_CUDA_CHECK(cudaMemcpy(receive_ + bytes_ / 2, &value, 1, cudaMemcpyHostToDevice));
}

}  // namespace wb
