/* The plainest MPI ping-pong: MPI_Send / MPI_Recv between ranks 0 and 1, timed on rank 0 with
 * MPI_Wtime over ITERS round trips after WARMUP untimed ones. Prints the half round trip in us.
 * A peer for wb-net's latency test: no harness, no checks, nothing between the calls.
 * Build: mpicc -O2 bare_pingpong.c -o bare_pingpong; run: mpiexec -n 2 ./bare_pingpong BYTES ITERS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long bytes = argc > 1 ? atol(argv[1]) : 8;
  const long iters = argc > 2 ? atol(argv[2]) : 10000;
  const long warmup = iters / 10 + 1;
  char* buffer = calloc((size_t)bytes + 1, 1);
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) {
      MPI_Barrier(MPI_COMM_WORLD);
      start = MPI_Wtime();
    }
    if (rank == 0) {
      MPI_Send(buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) printf("%ld %.4f\n", bytes, (MPI_Wtime() - start) / (double)iters / 2 * 1e6);
  free(buffer);
  MPI_Finalize();
  return 0;
}
