/* The smallest program that shows whether an MPI finalizes: 5 all_reduce, then MPI_Finalize.
 * bench/peers/finalize_hang_rate.sh runs it many times over the virtual cluster. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double value = rank, sum = 0;
  for (int i = 0; i < 5; ++i) MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0) printf("finalized, sum %g\n", sum);
  return 0;
}
