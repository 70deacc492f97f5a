#include "gpu/copy_legs.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "copy_kernels.h"
#include "data_pattern.h"
#include "data_pattern_device.h"
#include "gpu/checked_cuda.h"
#include "gpu/stream_wait.h"
#include "host/numa_memory.h"
#include "pointer_chase.h"

namespace wb {
namespace {

// The device is current for the life of the guard.
class OnDevice {
 public:
  explicit OnDevice(int device) {
    WB_CUDA_CHECK(cudaGetDevice(&previous_));
    WB_CUDA_CHECK(cudaSetDevice(device));
  }
  ~OnDevice() { cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

class DeviceCopyBuffer final : public CopyBuffer {
 public:
  DeviceCopyBuffer(int device, std::size_t bytes, std::chrono::milliseconds timeout)
      : device_(device), bytes_(bytes), timeout_(timeout) {
    OnDevice on(device);
    WB_CUDA_CHECK(cudaMalloc(&data_, bytes + 16));
    WB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&counter_), sizeof *counter_));
    WB_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&result_), sizeof *result_));
  }
  ~DeviceCopyBuffer() override {
    OnDevice on(device_);
    cudaFree(data_);
    cudaFree(counter_);
    cudaFreeHost(result_);
    cudaStreamDestroy(stream_);
  }
  void* data() override { return data_; }
  std::size_t bytes() const override { return bytes_; }
  void fill(std::uint64_t sample) override {
    OnDevice on(device_);
    pattern::device::fill(data_, bytes_, sample, stream_);
    wait("filling a device buffer");
  }
  void poison(std::uint64_t sample) override {
    OnDevice on(device_);
    pattern::device::poison(data_, bytes_, sample, stream_);
    wait("poisoning a device buffer");
  }
  std::uint64_t count_wrong(std::uint64_t sample) override {
    OnDevice on(device_);
    pattern::device::count_wrong_bytes_async(data_, bytes_, sample, counter_, result_, stream_);
    wait("checking a device buffer");
    return *result_;
  }

 private:
  void wait(const char* what) { wait_stream_with_deadline(stream_, timeout_, [what] { return std::string(what); }); }
  int device_;
  std::size_t bytes_;
  std::chrono::milliseconds timeout_;
  void* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
  unsigned long long* counter_ = nullptr;
  unsigned long long* result_ = nullptr;
};

class HostCopyBuffer final : public CopyBuffer {
 public:
  HostCopyBuffer(NumaMemory& numa, int node, std::size_t bytes, bool pinned)
      : memory_(numa.allocate_on(node, bytes + 16)), bytes_(bytes), pinned_(pinned) {
    if (pinned_)
      WB_CUDA_CHECK(cudaHostRegister(memory_->data, bytes + 16, cudaHostRegisterPortable | cudaHostRegisterMapped));
  }
  ~HostCopyBuffer() override {
    if (pinned_) cudaHostUnregister(memory_->data);
  }
  void* data() override { return memory_->data; }
  std::size_t bytes() const override { return bytes_; }
  void fill(std::uint64_t sample) override { pattern::fill(memory_->data, bytes_, sample); }
  void poison(std::uint64_t sample) override { pattern::poison(memory_->data, bytes_, sample); }
  std::uint64_t count_wrong(std::uint64_t sample) override {
    return pattern::count_wrong_bytes(memory_->data, bytes_, sample);
  }

 private:
  NumaMemory::BufferPtr memory_;
  std::size_t bytes_;
  bool pinned_;
};

// A flag in mapped pinned memory that every GPU's spin kernel can read.
class SpinFlag {
 public:
  SpinFlag() {
    void* memory = nullptr;
    WB_CUDA_CHECK(cudaHostAlloc(&memory, sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    host_ = static_cast<volatile int*>(memory);
    *host_ = 0;
  }
  ~SpinFlag() { cudaFreeHost(const_cast<int*>(host_)); }
  volatile int* device_view() {
    int* device = nullptr;
    WB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device), const_cast<int*>(host_), 0));
    return device;
  }
  void hold() { *host_ = 0; }
  void release() { *host_ = 1; }

 private:
  volatile int* host_ = nullptr;
};

constexpr long long kSpinCycles = 20'000'000'000LL;  // ~10 s at 2 GHz: the spin can never hang a GPU

class CopyLegsBatch final : public TimedBatch {
 public:
  CopyLegsBatch(std::vector<CopyLeg> legs, std::size_t copies, std::chrono::milliseconds timeout)
      : legs_(std::move(legs)), copies_(copies), timeout_(timeout) {
    for (const auto& leg : legs_) {
      OnDevice on(leg.device);
      Stream s;
      s.device = leg.device;
      WB_CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
      WB_CUDA_CHECK(cudaEventCreate(&s.start));
      WB_CUDA_CHECK(cudaEventCreate(&s.stop));
      int sms = 0;
      WB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, leg.device));
      s.blocks = std::max(1, sms * 4);
      streams_.push_back(s);
    }
  }
  ~CopyLegsBatch() override {
    for (auto& s : streams_) {
      OnDevice on(s.device);
      cudaEventDestroy(s.start);
      cudaEventDestroy(s.stop);
      cudaStreamDestroy(s.stream);
    }
  }

  std::uint64_t ops_per_batch() const override { return copies_; }

  void prepare(std::uint64_t sample) override {
    std::set<CopyBuffer*> sources, destinations;
    for (auto& leg : legs_) {
      if (sources.insert(leg.src.get()).second) leg.src->fill(sample);
      if (destinations.insert(leg.dst.get()).second) leg.dst->poison(sample);
    }
  }

  double run() override {
    flag_.hold();
    volatile int* flag = flag_.device_view();
    for (std::size_t i = 0; i < legs_.size(); ++i) {
      const CopyLeg& leg = legs_[i];
      Stream& s = streams_[i];
      OnDevice on(leg.device);
      kernels::spin(flag, kSpinCycles, s.stream);  // holds the stream until everything is queued
      WB_CUDA_CHECK(cudaEventRecord(s.start, s.stream));
      for (std::size_t c = 0; c < copies_; ++c) {
        if (leg.sm) kernels::sm_copy(leg.dst->data(), leg.src->data(), leg.src->bytes(), s.blocks, s.stream);
        else WB_CUDA_CHECK(cudaMemcpyAsync(leg.dst->data(), leg.src->data(), leg.src->bytes(), cudaMemcpyDefault, s.stream));
      }
      WB_CUDA_CHECK(cudaEventRecord(s.stop, s.stream));
    }
    flag_.release();
    double slowest = 0;
    for (auto& s : streams_) {
      wait_stream_with_deadline(s.stream, timeout_, [] { return std::string("GPU copies"); });
      float ms = 0;
      WB_CUDA_CHECK(cudaEventElapsedTime(&ms, s.start, s.stop));
      slowest = std::max(slowest, static_cast<double>(ms) / 1000.0);
    }
    return slowest;
  }

  std::uint64_t verify(std::uint64_t sample) override {
    std::set<CopyBuffer*> checked;
    std::uint64_t wrong = 0;
    for (auto& leg : legs_)
      if (checked.insert(leg.dst.get()).second) wrong += leg.dst->count_wrong(sample);
    return wrong;
  }

 private:
  struct Stream {
    int device = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    int blocks = 1;
  };
  std::vector<CopyLeg> legs_;
  std::size_t copies_;
  std::chrono::milliseconds timeout_;
  std::vector<Stream> streams_;
  SpinFlag flag_;
};

class GpuChaseBatch final : public TimedBatch {
 public:
  GpuChaseBatch(int device, std::shared_ptr<CopyBuffer> buffer, std::size_t hops, std::chrono::milliseconds timeout)
      : device_(device), buffer_(std::move(buffer)), hops_(hops), timeout_(timeout) {
    // Build the chain on the host and place it in the buffer (whatever memory that is).
    std::vector<unsigned char> chain(buffer_->bytes());
    chase::build(chain.data(), chain.size(), 4242);
    // The chain holds host addresses of `chain`; rebase every link onto the buffer's address.
    const auto base = reinterpret_cast<std::uintptr_t>(chain.data());
    void* target = device_address(buffer_->data());
    for (std::size_t off = 0; off + chase::kNodeBytes <= chain.size(); off += chase::kNodeBytes) {
      std::uintptr_t link;
      std::memcpy(&link, chain.data() + off, sizeof link);
      const std::uintptr_t rebased = reinterpret_cast<std::uintptr_t>(target) + (link - base);
      std::memcpy(chain.data() + off, &rebased, sizeof rebased);
    }
    WB_CUDA_CHECK(cudaMemcpy(buffer_->data(), chain.data(), chain.size(), cudaMemcpyDefault));
    position_ = target;
    OnDevice on(device_);
    WB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    WB_CUDA_CHECK(cudaEventCreate(&start_));
    WB_CUDA_CHECK(cudaEventCreate(&stop_));
    WB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&end_), sizeof *end_));
  }
  ~GpuChaseBatch() override {
    OnDevice on(device_);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
    cudaFree(end_);
  }

  std::uint64_t ops_per_batch() const override { return hops_; }
  void prepare(std::uint64_t) override {}
  std::uint64_t verify(std::uint64_t) override { return 0; }
  bool checks_data() const override { return false; }

  double run() override {
    OnDevice on(device_);
    WB_CUDA_CHECK(cudaEventRecord(start_, stream_));
    kernels::pointer_chase(position_, hops_, end_, stream_);
    WB_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    wait_stream_with_deadline(stream_, timeout_, [] { return std::string("GPU pointer chase"); });
    WB_CUDA_CHECK(cudaMemcpy(&position_, end_, sizeof position_, cudaMemcpyDeviceToHost));
    float ms = 0;
    WB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) / 1000.0;
  }

 private:
  // Mapped pinned host memory has a device address of its own; device memory is its own address.
  static void* device_address(void* pointer) {
    cudaPointerAttributes attributes{};
    WB_CUDA_CHECK(cudaPointerGetAttributes(&attributes, pointer));
    return attributes.devicePointer != nullptr ? attributes.devicePointer : pointer;
  }

  int device_;
  std::shared_ptr<CopyBuffer> buffer_;
  std::size_t hops_;
  std::chrono::milliseconds timeout_;
  const void* position_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  const void** end_ = nullptr;
};

}  // namespace

std::shared_ptr<CopyBuffer> device_buffer(int device, std::size_t bytes, std::chrono::milliseconds timeout) {
  return std::make_shared<DeviceCopyBuffer>(device, bytes, timeout);
}

std::shared_ptr<CopyBuffer> host_buffer(NumaMemory& numa, int numa_node, std::size_t bytes, bool pinned) {
  return std::make_shared<HostCopyBuffer>(numa, numa_node, bytes, pinned);
}

std::unique_ptr<TimedBatch> make_copy_legs_batch(std::vector<CopyLeg> legs, std::size_t copies,
                                                 std::chrono::milliseconds timeout) {
  return std::make_unique<CopyLegsBatch>(std::move(legs), copies, timeout);
}

std::unique_ptr<TimedBatch> make_gpu_chase_batch(int device, std::shared_ptr<CopyBuffer> buffer, std::size_t hops,
                                                 std::chrono::milliseconds timeout) {
  return std::make_unique<GpuChaseBatch>(device, std::move(buffer), hops, timeout);
}

}  // namespace wb
