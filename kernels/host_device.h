// Code that the host compiler and nvcc both build: formulas shared by a kernel and its host
// counterpart (data_pattern.h, collective_check.h).
#pragma once

#if defined(__CUDACC__)
#define WB_HOST_DEVICE __host__ __device__
#else
#define WB_HOST_DEVICE
#endif
