#include <cuda_runtime.h>

#include <algorithm>

#include "coll/coll_buffers.h"
#include "gpu/checked_cuda.h"

namespace wb {
namespace {

class DeviceCollBuffers final : public CollBuffers {
 public:
  DeviceCollBuffers(std::size_t send_bytes, std::size_t recv_bytes) : send_bytes_(send_bytes), recv_bytes_(recv_bytes) {
    WB_CUDA_CHECK(cudaMalloc(&send_, send_bytes + 1));
    WB_CUDA_CHECK(cudaMalloc(&recv_, recv_bytes + 1));
  }
  ~DeviceCollBuffers() override {
    cudaFree(send_);
    cudaFree(recv_);
  }
  void* send() override { return send_; }
  void* recv() override { return recv_; }
  void write_send(const std::vector<unsigned char>& bytes) override {
    WB_CUDA_CHECK(cudaMemcpy(send_, bytes.data(), std::min(bytes.size(), send_bytes_), cudaMemcpyHostToDevice));
  }
  void write_recv(const std::vector<unsigned char>& bytes) override {
    WB_CUDA_CHECK(cudaMemcpy(recv_, bytes.data(), std::min(bytes.size(), recv_bytes_), cudaMemcpyHostToDevice));
  }
  std::vector<unsigned char> read_recv() override {
    std::vector<unsigned char> bytes(recv_bytes_);
    WB_CUDA_CHECK(cudaMemcpy(bytes.data(), recv_, recv_bytes_, cudaMemcpyDeviceToHost));
    return bytes;
  }

 private:
  std::size_t send_bytes_, recv_bytes_;
  void* send_ = nullptr;
  void* recv_ = nullptr;
};

}  // namespace

std::unique_ptr<CollBuffers> make_device_coll_buffers(std::size_t send_bytes, std::size_t recv_bytes,
                                                      std::chrono::milliseconds) {
  return std::make_unique<DeviceCollBuffers>(send_bytes, recv_bytes);
}

}  // namespace wb
