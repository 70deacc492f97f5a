// One GPU per rank on a node: the rank's index among the ranks of its node, modulo the GPUs.
// Built with CUDA only.
#pragma once

#include <mpi.h>

namespace wb {

// Collective over `comm` (it splits off the ranks that share this node). Returns the device.
int select_local_device(MPI_Comm comm);

}  // namespace wb
