#include "gpu/local_device.h"

#include <cuda_runtime.h>

#include "gpu/checked_cuda.h"
#include "harness/checked_mpi.h"

namespace wb {

int select_local_device(MPI_Comm comm) {
  MPI_Comm node;
  WB_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local_rank = 0;
  WB_MPI_CHECK(MPI_Comm_rank(node, &local_rank));
  MPI_Comm_free(&node);
  int devices = 0;
  WB_CUDA_CHECK(cudaGetDeviceCount(&devices));
  const int device = local_rank % devices;
  WB_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

}  // namespace wb
