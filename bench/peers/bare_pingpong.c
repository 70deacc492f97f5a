/* The plainest MPI ping-pong: MPI_Send / MPI_Recv between ranks 0 and 1, timed on rank 0 with
 * MPI_Wtime over ITERS round trips after ITERS/10 untimed ones. Prints "BYTES HALF_ROUND_TRIP_US".
 * A peer for wb-net's latency test: no harness, no checks, nothing between the calls.
 *
 * LAYOUT "one": each rank sends from and receives into one buffer (as NetPIPE-style loops do).
 * LAYOUT "two": rank 0 sends from one buffer and receives into another, as wb-net must so that its
 * data check can tell an echo that never arrived. Buffers are written before timing, so no page
 * is the kernel's shared zero page (reading that is faster than reading real memory).
 *
 * Build: mpicc -O2 bare_pingpong.c -o bare_pingpong
 * Run:   mpiexec -n 2 ./bare_pingpong BYTES ITERS [one|two] */
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
  const long iters = argc > 2 ? atol(argv[2]) : 10000;
  const int two_buffers = argc > 3 && strcmp(argv[3], "two") == 0;
  const long warmup = iters / 10 + 1;
  char* send_buffer = page_buffer((size_t)bytes, 0x5a);
  char* receive_buffer = two_buffers ? page_buffer((size_t)bytes, 0xa5) : send_buffer;
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) {
      MPI_Barrier(MPI_COMM_WORLD);
      start = MPI_Wtime();
    }
    if (rank == 0) {
      MPI_Send(send_buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(receive_buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(send_buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(send_buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) printf("%ld %.4f\n", bytes, (MPI_Wtime() - start) / (double)iters / 2 * 1e6);
  if (two_buffers) free(receive_buffer);
  free(send_buffer);
  MPI_Finalize();
  return 0;
}
