#include <cuda_runtime.h>

#include "coll/coll_buffers.h"
#include "collective_check_device.h"
#include "gpu/checked_cuda.h"
#include "gpu/stream_wait.h"

namespace wb {
namespace {

// Device buffers whose check runs on the device: inputs written by a kernel, results compared
// by one that counts wrong elements; only the count crosses to the host.
class DeviceCollBuffers final : public CollBuffers {
 public:
  DeviceCollBuffers(std::size_t send_bytes, std::size_t recv_bytes, std::chrono::milliseconds timeout)
      : recv_bytes_(recv_bytes), timeout_(timeout) {
    WB_CUDA_CHECK(cudaMalloc(&send_, send_bytes + 1));
    WB_CUDA_CHECK(cudaMalloc(&recv_, recv_bytes + 1));
    WB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    WB_CUDA_CHECK(cudaMalloc(&device_counter_, sizeof *device_counter_));
    WB_CUDA_CHECK(cudaMallocHost(&host_counter_, sizeof *host_counter_));
  }
  ~DeviceCollBuffers() override {
    cudaFree(send_);
    cudaFree(recv_);
    cudaFree(device_counter_);
    cudaFreeHost(host_counter_);
    cudaStreamDestroy(stream_);
  }
  void* send() override { return send_; }
  void* recv() override { return recv_; }

  void fill_inputs(Which which, const CheckContext& c, int rank, std::size_t offset, std::size_t first_index,
                   std::size_t elements) override {
    collcheck::device::fill_inputs(check_params(c), rank, which == Which::kSend ? send_ : recv_, offset, first_index,
                                   elements, stream_);
    synchronize("writing a collective's inputs");
  }
  void poison_recv() override {
    WB_CUDA_CHECK(cudaMemsetAsync(recv_, 0, recv_bytes_, stream_));
    synchronize("poisoning a receive buffer");
  }
  void plant_wrong_value(const CheckContext& c, int rank, std::size_t offset) override {
    const collcheck::Params p = check_params(c);
    unsigned char value[8];
    collcheck::store(p.type, value, collcheck::expected(p, rank, 0) + 1);
    WB_CUDA_CHECK(cudaMemcpy(static_cast<unsigned char*>(recv_) + offset * collcheck::type_size(p.type), value,
                             collcheck::type_size(p.type), cudaMemcpyHostToDevice));
  }
  std::uint64_t count_wrong(const CheckContext& c, int rank, std::size_t offset) override {
    collcheck::device::count_wrong_async(check_params(c), rank, recv_, offset, device_counter_, host_counter_, stream_);
    synchronize("checking a collective's result");
    return *host_counter_;
  }

 private:
  void synchronize(const char* what) {
    wait_stream_with_deadline(stream_, timeout_, [what] { return std::string(what) + " on the GPU"; });
  }

  std::size_t recv_bytes_;
  std::chrono::milliseconds timeout_;
  void* send_ = nullptr;
  void* recv_ = nullptr;
  cudaStream_t stream_ = nullptr;
  unsigned long long* device_counter_ = nullptr;
  unsigned long long* host_counter_ = nullptr;
};

}  // namespace

std::unique_ptr<CollBuffers> make_device_coll_buffers(std::size_t send_bytes, std::size_t recv_bytes,
                                                      std::chrono::milliseconds timeout) {
  return std::make_unique<DeviceCollBuffers>(send_bytes, recv_bytes, timeout);
}

}  // namespace wb
