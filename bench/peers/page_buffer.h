/* Message buffers on a page boundary, as OSU's and IMB's (and wb-net's, wb-coll's) are: malloc of a
 * large size returns 16 bytes past a page, which MPICH moves at well under half the rate
 * (bench/MEASUREMENTS.md, issue 27). Exits with a message when memory is short. */
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void* page_buffer(size_t bytes, int fill) {
  const long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
  void* data = NULL;
  if (posix_memalign(&data, (size_t)page, bytes > 0 ? bytes : 1) != 0) {
    fprintf(stderr, "cannot allocate %zu bytes on a page boundary\n", bytes);
    exit(1);
  }
  memset(data, fill, bytes > 0 ? bytes : 1);
  return data;
}
