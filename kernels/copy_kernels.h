// CUDA kernels of the GPU link benchmarks (built with CUDA only):
//   sm_copy        a copy done by the SMs with 16-byte loads and stores (the tail byte by byte);
//                  reading or writing peer memory, depending on which GPU launches it
//   spin           holds a stream until the host sets a flag (mapped pinned memory), so every copy
//                  of a batch is queued before the first starts and launch gaps are not timed;
//                  gives up after `max_cycles` so a lost flag cannot hang the GPU
//   pointer_chase  one thread following a chain (see pointer_chase.h) through device, peer or
//                  mapped host memory: time per hop is the latency of that memory from this GPU
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace wb::kernels {

void sm_copy(void* dst, const void* src, std::size_t bytes, int blocks, cudaStream_t stream);
void spin(volatile int* flag, long long max_cycles, cudaStream_t stream);
// Follows `steps` links from `start`; writes the end to `*end` (device-visible memory).
void pointer_chase(const void* start, std::size_t steps, const void** end, cudaStream_t stream);

}  // namespace wb::kernels
