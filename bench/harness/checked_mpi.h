// WB_MPI_CHECK(call): runs an MPI call and throws wb::CallError naming the call, file, line and
// MPI_Error_string's message when it does not return MPI_SUCCESS. Communicators used with it must
// have MPI_ERRORS_RETURN set (MpiCommunicator does this), or MPI aborts before we can explain.
#pragma once

#include <mpi.h>

#include <string>

#include "harness/checked_call.h"

namespace wb {

std::string mpi_error_string(int code);

}  // namespace wb

#define WB_MPI_CHECK(call)                                                              \
  do {                                                                                  \
    const int wb_mpi_rc_ = (call);                                                      \
    if (wb_mpi_rc_ != MPI_SUCCESS)                                                      \
      ::wb::throw_failed_call("MPI", #call, __FILE__, __LINE__,                         \
                              ::wb::mpi_error_string(wb_mpi_rc_), wb_mpi_rc_);          \
  } while (0)
