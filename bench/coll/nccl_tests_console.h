// wb-coll's console in nccl-tests' words: its header, one line per size with out-of-place and
// in-place side by side (time in us, algbw and busbw in GB/s, #wrong), and its two closing lines,
// "# Out of bounds values : N OK|FAILED" and "# Avg bus bandwidth : X", which site scripts grep.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "harness/console_view.h"

namespace wb {

struct NcclTestsHeader {
  std::string parameters;   // "# nThread 1 nGpus 1 minBytes 8 ... graph: 0" and its notes, each line with "# "
  std::string devices;      // "#  Rank  0 Group  0 Pid ... on host device 0 [0x00] name", one line per rank
  std::string timing_rule;  // how the figures were taken
};

// `count_of` gives a row's element count as nccl-tests prints it (per rank for gather and scatter).
std::unique_ptr<ConsoleView> make_nccl_tests_console(std::FILE* out, NcclTestsHeader header,
                                                     std::function<std::uint64_t(const ResultRow&)> count_of);

// nccl-tests' time column: 2 decimals below 100 us, 1 below 10 ms, none above.
std::string nccl_tests_time(double us);

}  // namespace wb
