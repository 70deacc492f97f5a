// WB_NCCL_CHECK(call): throws wb::CallError naming the call, file, line and NCCL's message
// (ncclGetErrorString, plus ncclGetLastError's detail when NCCL has one).
#pragma once

#include <nccl.h>

#include <string>

#include "harness/checked_call.h"

namespace wb {
inline std::string nccl_error_text(ncclResult_t rc) {
  std::string text = ncclGetErrorString(rc);
  const char* detail = ncclGetLastError(nullptr);
  if (detail != nullptr && *detail != '\0') text += std::string(" (") + detail + ")";
  return text;
}
}  // namespace wb

#define WB_NCCL_CHECK(call)                                                                    \
  do {                                                                                         \
    const ncclResult_t wb_nccl_rc_ = (call);                                                   \
    if (wb_nccl_rc_ != ncclSuccess)                                                            \
      ::wb::throw_failed_call("NCCL", #call, __FILE__, __LINE__,                               \
                              ::wb::nccl_error_text(wb_nccl_rc_), static_cast<long>(wb_nccl_rc_)); \
  } while (0)
