// MPI names for wirebench's element types and reductions. float16 and bfloat16 have no MPI type:
// they are 2-byte contiguous types with user-defined reductions that compute in float.
#pragma once

#include <mpi.h>

#include "comm/dtype.h"

namespace wb {

MPI_Datatype mpi_datatype(DType type);
MPI_Op mpi_op(DType type, RedOp op);

}  // namespace wb
