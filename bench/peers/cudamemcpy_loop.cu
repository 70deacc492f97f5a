// The plainest device-local copy loop: cudaMemcpy of BYTES from one device buffer to another,
// ITERS times, timed with CUDA events around the whole loop. Prints "BYTES GB_PER_S" (10^9 bytes
// copied per second, as wb-p2p counts a copy). The peer of wb-p2p's ce/write gpuN->gpuN.
// Build: nvcc -O2 cudamemcpy_loop.cu -o cudamemcpy_loop; run: ./cudamemcpy_loop BYTES ITERS [DEVICE]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                             \
  do {                                                                                          \
    cudaError_t rc = (call);                                                                    \
    if (rc != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(rc)); \
      return 2;                                                                                 \
    }                                                                                           \
  } while (0)

int main(int argc, char** argv) {
  const size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (256ull << 20);
  const int iters = argc > 2 ? std::atoi(argv[2]) : 20;
  const int device = argc > 3 ? std::atoi(argv[3]) : 0;
  CHECK(cudaSetDevice(device));
  void *src = nullptr, *dst = nullptr;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemset(src, 1, bytes));
  for (int i = 0; i < 3; ++i) CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  for (int i = 0; i < iters; ++i) CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice));
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::printf("%zu %.3f\n", bytes, static_cast<double>(bytes) * iters / (ms / 1000.0) / 1e9);
  return 0;
}
