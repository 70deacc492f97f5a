// The NCCL side of wb-coll: whether it can run here, and its communicator (device selected, one
// GPU per rank of a node). Built with or without CUDA.
#pragma once

#include <mpi.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "comm/communicator.h"

namespace wb {

std::optional<std::string> nccl_unavailable();
// Collective over MPI_COMM_WORLD (device selection) and then over `comm` (the NCCL communicator).
std::unique_ptr<Communicator> open_nccl(MPI_Comm comm, std::chrono::milliseconds timeout);

}  // namespace wb
