#include "data_pattern.h"
#include "data_pattern_device.h"
#include "gpu/checked_cuda.h"

namespace wb::pattern::device {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t items) {
  const std::size_t wanted = (items + kThreads - 1) / kThreads;
  return static_cast<int>(wanted < 65535 ? (wanted == 0 ? 1 : wanted) : 65535);  // grid-stride beyond
}

__global__ void write_kernel(unsigned char* out, std::size_t bytes, std::uint64_t sample, std::uint64_t flip) {
  const std::size_t words = bytes / 8;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t j = blockIdx.x * blockDim.x + threadIdx.x; j < words; j += stride) {
    const std::uint64_t value = word(j, sample) ^ flip;
    for (int b = 0; b < 8; ++b) out[8 * j + b] = static_cast<unsigned char>(value >> (8 * b));
  }
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (std::size_t i = words * 8; i < bytes; ++i)
      out[i] = static_cast<unsigned char>(byte_at(i, sample) ^ static_cast<unsigned char>(flip));
}

__global__ void count_kernel(const unsigned char* in, std::size_t bytes, std::uint64_t sample,
                             unsigned long long* wrong) {
  unsigned long long local = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < bytes; i += stride)
    local += in[i] != byte_at(i, sample);
  if (local != 0) atomicAdd(wrong, local);
}

}  // namespace

void fill(void* buffer, std::size_t bytes, std::uint64_t sample, cudaStream_t stream) {
  write_kernel<<<blocks_for(bytes / 8), kThreads, 0, stream>>>(static_cast<unsigned char*>(buffer), bytes, sample, 0);
  WB_CUDA_CHECK(cudaGetLastError());
}

void poison(void* buffer, std::size_t bytes, std::uint64_t sample, cudaStream_t stream) {
  write_kernel<<<blocks_for(bytes / 8), kThreads, 0, stream>>>(static_cast<unsigned char*>(buffer), bytes, sample,
                                                              ~0ull);
  WB_CUDA_CHECK(cudaGetLastError());
}

void count_wrong_bytes_async(const void* buffer, std::size_t bytes, std::uint64_t sample,
                             unsigned long long* device_counter, unsigned long long* host_result,
                             cudaStream_t stream) {
  WB_CUDA_CHECK(cudaMemsetAsync(device_counter, 0, sizeof *device_counter, stream));
  count_kernel<<<blocks_for(bytes), kThreads, 0, stream>>>(static_cast<const unsigned char*>(buffer), bytes,
                                                           sample, device_counter);
  WB_CUDA_CHECK(cudaGetLastError());
  WB_CUDA_CHECK(cudaMemcpyAsync(host_result, device_counter, sizeof *host_result, cudaMemcpyDeviceToHost, stream));
}

}  // namespace wb::pattern::device
