/* osu_bw's posting pattern with nothing around it: rank 0 posts a window of WINDOW MPI_Isend from
 * one send buffer, waits for all, then receives a 4-byte acknowledgement; rank 1 posts WINDOW
 * MPI_Irecv into one receive buffer, waits, and sends the acknowledgement (OSU 5.x-7.x osu_bw).
 * Timed on rank 0 with MPI_Wtime over ITERS windows after ITERS/10 untimed ones. Prints
 * "BYTES GB_PER_S" (10^9 bytes/s). A peer for wb-net --tests bw --window osu.
 *
 * Build: mpicc -O2 bare_osu_bw.c -o bare_osu_bw
 * Run:   mpiexec -n 2 ./bare_osu_bw BYTES ITERS [WINDOW] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page_buffer.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long bytes = argc > 1 ? atol(argv[1]) : 4194304;
  const long iters = argc > 2 ? atol(argv[2]) : 20;
  const int window = argc > 3 ? atoi(argv[3]) : 64;
  const long warmup = iters / 10 + 1;
  char* send_buffer = page_buffer((size_t)bytes + 4, 0x5a);
  char* receive_buffer = page_buffer((size_t)bytes + 4, 0xa5);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)window);
  double start = 0;
  for (long i = 0; i < warmup + iters; ++i) {
    if (i == warmup) {
      MPI_Barrier(MPI_COMM_WORLD);
      start = MPI_Wtime();
    }
    if (rank == 0) {
      for (int w = 0; w < window; ++w) MPI_Isend(send_buffer, (int)bytes, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &requests[w]);
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Recv(receive_buffer, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      for (int w = 0; w < window; ++w) MPI_Irecv(receive_buffer, (int)bytes, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &requests[w]);
      MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
      MPI_Send(send_buffer, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
    }
  }
  const double elapsed = MPI_Wtime() - start;
  if (rank == 0) printf("%ld %.4f\n", bytes, (double)bytes * (double)window * (double)iters / elapsed / 1e9);
  free(requests);
  free(receive_buffer);
  free(send_buffer);
  MPI_Finalize();
  return 0;
}
