// The harness's own traffic between ranks (agreeing on times, error counts, host names), kept on
// a communicator of its own so it never mixes with benchmark messages. Every call has the same
// deadline as the data plane.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

class MpiControl {
 public:
  MpiControl(MPI_Comm parent, std::chrono::milliseconds timeout);
  ~MpiControl();
  MpiControl(const MpiControl&) = delete;
  MpiControl& operator=(const MpiControl&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }

  // `what` names the step in a timeout message ("the start of net/latency/...").
  double max(double value, const std::string* what = nullptr);
  double min(double value, const std::string* what = nullptr);
  double mean(double value, const std::string* what = nullptr);
  double from_root(double value, const std::string* what = nullptr);  // rank 0's value on every rank
  std::uint64_t sum(std::uint64_t value);
  void barrier(const std::string* what = nullptr);
  std::vector<std::string> all_gather(const std::string& text);  // index = rank
  // Every rank's value (index = rank): the times of pairs measured at once, each by its own ranks.
  std::vector<double> all_gather_values(double value, const std::string* what = nullptr);
  // `count` values from every rank, rank after rank (every rank passes the same count).
  std::vector<double> all_gather_values(const std::vector<double>& values, std::size_t count,
                                        const std::string* what = nullptr);
  // The first rank's reason, "rank 3: <reason>", if any rank has one: so that every rank takes the
  // same decision (run a backend or write SKIP rows) and none waits for a benchmark another skips.
  std::optional<std::string> first_reason(const std::optional<std::string>& mine);

  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  double all_reduce(double value, MPI_Op op, const char* agreeing_on, const std::string* what);

  int rank_ = 0, size_ = 1;  // before comm_: its initialiser fills them
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::chrono::milliseconds timeout_;
};

}  // namespace wb
