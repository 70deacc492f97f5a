#include "collective_check_device.h"
#include "gpu/checked_cuda.h"

namespace wb::collcheck::device {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::uint64_t items) {
  const std::uint64_t wanted = (items + kThreads - 1) / kThreads;
  return static_cast<int>(wanted < 65535 ? (wanted == 0 ? 1 : wanted) : 65535);  // grid-stride beyond
}

__global__ void fill_kernel(Params params, int rank, unsigned char* out, std::uint64_t first_index,
                            std::uint64_t elements) {
  const std::size_t size = type_size(params.type);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < elements; i += stride)
    store(params.type, out + i * size, input(params, rank, first_index + i));
}

__global__ void count_kernel(Params params, int rank, const unsigned char* in, std::uint64_t elements,
                             unsigned long long* wrong_elements) {
  const std::size_t size = type_size(params.type);
  unsigned long long local = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * blockDim.x + threadIdx.x; i < elements; i += stride)
    local += wrong(params, rank, i, in + i * size);
  if (local != 0) atomicAdd(wrong_elements, local);
}

}  // namespace

void fill_inputs(const Params& params, int rank, void* buffer, std::uint64_t offset, std::uint64_t first_index,
                 std::uint64_t elements, cudaStream_t stream) {
  if (elements == 0) return;
  auto* out = static_cast<unsigned char*>(buffer) + offset * type_size(params.type);
  fill_kernel<<<blocks_for(elements), kThreads, 0, stream>>>(params, rank, out, first_index, elements);
  WB_CUDA_CHECK(cudaGetLastError());
}

void count_wrong_async(const Params& params, int rank, const void* buffer, std::uint64_t offset,
                       unsigned long long* device_counter, unsigned long long* host_result, cudaStream_t stream) {
  WB_CUDA_CHECK(cudaMemsetAsync(device_counter, 0, sizeof *device_counter, stream));
  const std::uint64_t elements = receives_result(params, rank) ? recv_elements(params) : 0;
  if (elements > 0) {
    const auto* in = static_cast<const unsigned char*>(buffer) + offset * type_size(params.type);
    count_kernel<<<blocks_for(elements), kThreads, 0, stream>>>(params, rank, in, elements, device_counter);
    WB_CUDA_CHECK(cudaGetLastError());
  }
  WB_CUDA_CHECK(cudaMemcpyAsync(host_result, device_counter, sizeof *host_result, cudaMemcpyDeviceToHost, stream));
}

}  // namespace wb::collcheck::device
