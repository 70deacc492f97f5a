// CUDA kernels of the collective data check (collective_check.h): inputs written and wrong
// elements counted on the device, on a stream, so that no buffer is copied to the host. Built
// only when CUDA is found.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "collective_check.h"

namespace wb::collcheck::device {

// Writes input(params, rank, first_index + i) into element `offset + i` of `buffer`, i < elements.
void fill_inputs(const Params& params, int rank, void* buffer, std::uint64_t offset, std::uint64_t first_index,
                 std::uint64_t elements, cudaStream_t stream);

// Counts the wrong elements of `rank`'s result, recv_elements(params) of them from element
// `offset` of `buffer`, into `device_counter` (reset here) and copies the count to `host_result`
// (pinned); the caller waits on the stream (with a deadline) before reading it.
void count_wrong_async(const Params& params, int rank, const void* buffer, std::uint64_t offset,
                       unsigned long long* device_counter, unsigned long long* host_result, cudaStream_t stream);

}  // namespace wb::collcheck::device
