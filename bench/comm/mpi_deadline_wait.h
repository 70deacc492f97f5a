// Waiting on MPI requests with a deadline: polls MPI_Testall instead of blocking in MPI_Waitall,
// so a dead or stuck peer becomes a TimeoutError with a message instead of a hang.
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <span>
#include <string>

namespace wb {

// `what` is called only on timeout, to build the message ("receive of 8 bytes from rank 1").
void wait_all_with_deadline(std::span<MPI_Request> requests, std::chrono::milliseconds timeout,
                            const std::function<std::string()>& what);

// "rank 2 on node-b" for messages; set once MPI is up.
void set_rank_label(std::string label);
const std::string& rank_label();

}  // namespace wb
