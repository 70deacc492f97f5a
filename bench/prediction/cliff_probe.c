// Probe of the 8-rank large-message cliff (issue 56; bench/MEASUREMENTS.md, "the transport"): times, as the
// slowest rank's median of 6 after a warm-up, an MPI_Iallreduce of BYTES (its sum checked) and recursive
// halving's exchanges made by hand (partner rank^k: S/2, S/4, ...), all steps and the first alone, so the
// library's schedule and the transport under it can be told apart. wait: MPI_Waitall; poll: MPI_Testall as
// wb-step's executor polls (SPINS polls, then naps of NAP_US microseconds; environment, default 64 and 20).
//   $(ci/tested-mpi)/mpicc -O2 -o /tmp/cliff_probe bench/prediction/cliff_probe.c
//   ci/vcluster up --nodes 8 --rate 200mbit; ci/vcluster exec /tmp/cliff_probe wait|poll [BYTES]
//   (libfabric's TCP instead of UCX's: MPICH_CH4_NETMOD=ofi FI_PROVIDER=tcp ci/vcluster exec ...)
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define REPS 6
static int poll_mode, spins = 64, nap = 20;
static void finish(int n, MPI_Request* r) {
  if (!poll_mode) { MPI_Waitall(n, r, MPI_STATUSES_IGNORE); return; }
  int done = 0, idle = 0;
  while (!done) { MPI_Testall(n, r, &done, MPI_STATUSES_IGNORE); if (!done && ++idle > spins) usleep(nap); }
}
static int cmp(const void* a, const void* b) { double x = *(double*)a, y = *(double*)b; return (x > y) - (x < y); }
static double med(double* v) { qsort(v, REPS, sizeof *v, cmp); return (v[REPS/2-1] + v[REPS/2]) / 2; }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  poll_mode = argc > 1 && !strcmp(argv[1], "poll"); if (getenv("NAP_US")) nap = atoi(getenv("NAP_US")); if (getenv("SPINS")) spins = atoi(getenv("SPINS"));
  size_t bytes = argc > 2 ? strtoull(argv[2], 0, 10) : 3460000;
  size_t n = bytes / 4;
  float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
  for (size_t i = 0; i < n; i++) a[i] = rank + 1;
  double t_ar[REPS], t_ex[REPS], t_first[REPS];
  for (int rep = -1; rep < REPS; rep++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(); MPI_Request r;
    MPI_Iallreduce(a, b, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r); finish(1, &r);
    double t = MPI_Wtime() - t0, mx; MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (b[0] != size * (size + 1) / 2.0f || b[n-1] != b[0]) { fprintf(stderr, "rank %d: wrong sum %f\n", rank, b[n-1]); MPI_Abort(MPI_COMM_WORLD, 2); }
    if (rep >= 0) t_ar[rep] = mx;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime(); double first = 0; size_t chunk = n; int last = rank;
    for (int k = 1; k < size; k <<= 1) {
      chunk /= 2; MPI_Request q[2]; int p = rank ^ k;
      c[0] = -1;  // the step's data must overwrite it
      MPI_Irecv(c, (int)chunk, MPI_FLOAT, p, k, MPI_COMM_WORLD, &q[0]);
      MPI_Isend(a, (int)chunk, MPI_FLOAT, p, k, MPI_COMM_WORLD, &q[1]); finish(2, q);
      if (k == 1) first = MPI_Wtime() - t0;
      last = p;
    }
    if (size > 1 && c[0] != last + 1) { fprintf(stderr, "rank %d: exchange from %d not received\n", rank, last); MPI_Abort(MPI_COMM_WORLD, 2); }
    t = MPI_Wtime() - t0; MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double mf; MPI_Allreduce(&first, &mf, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rep >= 0) { t_ex[rep] = mx; t_first[rep] = mf; }
  }
  if (!rank) printf("ranks %d bytes %zu mode %s: iallreduce %.1f ms, exchanges %.1f ms, first exchange %.1f ms\n",
                    size, bytes, poll_mode ? "poll" : "wait", 1e3 * med(t_ar), 1e3 * med(t_ex), 1e3 * med(t_first));
  MPI_Finalize(); return 0;
}
