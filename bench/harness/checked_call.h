// Formats the message of a failed library call: which call, where, and what the library said.
// The per-library macros (WB_MPI_CHECK, WB_CUDA_CHECK, WB_NCCL_CHECK) build on this.
#pragma once

#include <string>

#include "harness/errors.h"

namespace wb {

// "MPI_Send(buf, n, ...) failed at bench/net/x.cpp:42: <library message> (code 5)"
std::string describe_failed_call(const char* library, const char* call, const char* file, int line,
                                 const std::string& library_message, long code);

[[noreturn]] void throw_failed_call(const char* library, const char* call, const char* file,
                                    int line, const std::string& library_message, long code);

}  // namespace wb
