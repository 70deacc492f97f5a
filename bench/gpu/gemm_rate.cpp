#include "gpu/gemm_rate.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gpu/checked_cuda.h"
#include "gpu/stream_wait.h"
#include "harness/checked_call.h"

namespace wb {
namespace {

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_failed_call("cuBLAS", call, file, line, cublasGetStatusString(status), static_cast<long>(status));
}
#define WB_CUBLAS_CHECK(call) ::wb::check_cublas((call), #call, __FILE__, __LINE__)

}  // namespace

double measure_gemm_tflops(int m, int n, int k, std::chrono::milliseconds timeout) {
  constexpr int kWarmup = 3, kTimed = 10;
  cudaStream_t stream = nullptr;
  WB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t handle = nullptr;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  auto release = [&] {
    if (handle) cublasDestroy(handle);
    cudaFree(a), cudaFree(b), cudaFree(c);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
  };
  try {
    WB_CUBLAS_CHECK(cublasCreate(&handle));
    WB_CUBLAS_CHECK(cublasSetStream(handle, stream));
    const auto elements = [](int x, int y) { return static_cast<std::size_t>(x) * static_cast<std::size_t>(y); };
    WB_CUDA_CHECK(cudaMalloc(&a, elements(m, k) * sizeof(__nv_bfloat16)));
    WB_CUDA_CHECK(cudaMalloc(&b, elements(k, n) * sizeof(__nv_bfloat16)));
    WB_CUDA_CHECK(cudaMalloc(&c, elements(m, n) * sizeof(__nv_bfloat16)));
    WB_CUDA_CHECK(cudaMemsetAsync(a, 0, elements(m, k) * sizeof(__nv_bfloat16), stream));
    WB_CUDA_CHECK(cudaMemsetAsync(b, 0, elements(k, n) * sizeof(__nv_bfloat16), stream));
    WB_CUDA_CHECK(cudaEventCreate(&start));
    WB_CUDA_CHECK(cudaEventCreate(&stop));
    const float alpha = 1.0f, beta = 0.0f;
    auto gemm = [&] {
      WB_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, CUDA_R_16BF, m, b, CUDA_R_16BF,
                                   k, &beta, c, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
    for (int i = 0; i < kWarmup; ++i) gemm();
    WB_CUDA_CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < kTimed; ++i) gemm();
    WB_CUDA_CHECK(cudaEventRecord(stop, stream));
    wait_stream_with_deadline(stream, timeout, [] { return std::string("the GEMM rate measurement"); });
    float ms = 0;
    WB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    release();
    const double flops = 2.0 * m * static_cast<double>(n) * k * kTimed;
    return flops / (static_cast<double>(ms) * 1e-3) / 1e12;
  } catch (...) {
    release();
    throw;
  }
}

}  // namespace wb
