/* The plainest all_reduce loop: MPI_Allreduce of COUNT floats (sum, out of place, or in place with
 * a third argument "in_place"), timed with MPI_Wtime over ITERS calls after ITERS/10 untimed ones,
 * slowest rank reported. Prints "BYTES MICROSECONDS_PER_CALL". Not a peer (OSU and IMB are): a
 * probe of what MPI itself does, e.g. in place, which neither peer measures.
 * Build: mpicc -O2 bare_allreduce.c -o bare_allreduce; run: mpiexec -n 4 ./bare_allreduce BYTES ITERS [in_place] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page_buffer.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long bytes = argc > 1 ? atol(argv[1]) : 8;
  const long iters = argc > 2 ? atol(argv[2]) : 1000;
  const int in_place = argc > 3 && strcmp(argv[3], "in_place") == 0;
  const int count = (int)(bytes / (long)sizeof(float));
  float* send = page_buffer((size_t)count * sizeof(float), 0);
  float* recv = page_buffer((size_t)count * sizeof(float), 0);
  for (int i = 0; i < count; ++i) send[i] = (float)(i % 5 + 1);
  if (in_place) memcpy(recv, send, (size_t)count * sizeof(float));
  const void* from = in_place ? MPI_IN_PLACE : send;
  for (long i = 0; i < iters / 10 + 1; ++i) MPI_Allreduce(from, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (long i = 0; i < iters; ++i) MPI_Allreduce(from, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start, slowest = 0;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%ld %.4f\n", bytes, slowest / (double)iters * 1e6);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
