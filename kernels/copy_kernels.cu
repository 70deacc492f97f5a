#include "copy_kernels.h"
#include "gpu/checked_cuda.h"

namespace wb::kernels {
namespace {

constexpr int kThreads = 512;

__global__ void sm_copy_kernel(uint4* dst, const uint4* src, std::size_t vectors, unsigned char* dst_tail,
                               const unsigned char* src_tail, std::size_t tail) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) dst[i] = src[i];
  if (blockIdx.x == 0 && threadIdx.x < tail) dst_tail[threadIdx.x] = src_tail[threadIdx.x];
}

__global__ void spin_kernel(volatile int* flag, long long max_cycles) {
  const long long start = clock64();
  while (*flag == 0 && clock64() - start < max_cycles) {
  }
}

__global__ void chase_kernel(const void* start, std::size_t steps, const void** end) {
  const void* p = start;
  for (std::size_t i = 0; i < steps; ++i) p = *static_cast<const void* const*>(p);
  *end = p;
}

}  // namespace

void sm_copy(void* dst, const void* src, std::size_t bytes, int blocks, cudaStream_t stream) {
  // 16-byte accesses need 16-byte alignment; cudaMalloc gives 256, so buffers from it qualify.
  const std::size_t vectors = bytes / sizeof(uint4);
  const std::size_t tail = bytes - vectors * sizeof(uint4);
  sm_copy_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src), vectors,
                                                  static_cast<unsigned char*>(dst) + vectors * sizeof(uint4),
                                                  static_cast<const unsigned char*>(src) + vectors * sizeof(uint4), tail);
  WB_CUDA_CHECK(cudaGetLastError());
}

void spin(volatile int* flag, long long max_cycles, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(flag, max_cycles);
  WB_CUDA_CHECK(cudaGetLastError());
}

void pointer_chase(const void* start, std::size_t steps, const void** end, cudaStream_t stream) {
  chase_kernel<<<1, 1, 0, stream>>>(start, steps, end);
  WB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace wb::kernels
