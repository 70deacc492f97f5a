// CUDA kernels of the data check (see data_pattern.h): fill, poison and count wrong bytes of a
// device buffer, on a stream. Built only when CUDA is found.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace wb::pattern::device {

void fill(void* buffer, std::size_t bytes, std::uint64_t sample, cudaStream_t stream);
void poison(void* buffer, std::size_t bytes, std::uint64_t sample, cudaStream_t stream);
// Enqueues the count into `device_counter` (reset here) and its copy into `host_result` (pinned
// memory); the caller waits on the stream (with a deadline) before reading `host_result`.
void count_wrong_bytes_async(const void* buffer, std::size_t bytes, std::uint64_t sample,
                             unsigned long long* device_counter, unsigned long long* host_result,
                             cudaStream_t stream);

}  // namespace wb::pattern::device
