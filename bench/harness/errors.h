// Error types shared by every wirebench binary, and the exit codes they map to (docs/results.md).
#pragma once

#include <stdexcept>
#include <string>

#include "schema/exit_codes.h"  // enum ExitCode, from schema/exit-codes.csv

namespace wb {

// Bad command-line argument: the message says which argument and why.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input file: the message names the file, the line and the problem.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, long line, const std::string& problem)
      : std::runtime_error(where(file, line) + problem) {}

 private:
  // Appended piece by piece: `":" + std::string` (an insert at the front) trips GCC 12's
  // -Wrestrict false positive at -O3 (GCC bug 105651).
  static std::string where(const std::string& file, long line) {
    std::string text = file;
    if (line > 0) text.append(":").append(std::to_string(line));
    return text.append(": ");
  }
};

// A library call (MPI, CUDA, NCCL) returned an error.
class CallError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A multi-rank operation did not finish within its deadline.
class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wb
