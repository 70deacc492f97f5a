#include "comm/mpi_control.h"

#include <climits>
#include <cstring>
#include <stdexcept>

#include "comm/mpi_deadline_wait.h"
#include "harness/checked_mpi.h"
#include "harness/errors.h"

namespace wb {

MpiControl::MpiControl(MPI_Comm parent, std::chrono::milliseconds timeout)
    : comm_(duplicate_returning_errors(parent, rank_, size_)), timeout_(timeout) {}

MpiControl::~MpiControl() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

double MpiControl::all_reduce(double value, MPI_Op op, const char* agreeing_on, const std::string* what) {
  double result = 0;
  MPI_Request request;
  WB_MPI_CHECK(MPI_Iallreduce(&value, &result, 1, MPI_DOUBLE, op, comm_, &request));
  wait_all_with_deadline({&request, 1}, timeout_, [agreeing_on, what] {
    return std::string(agreeing_on) + (what ? " of " + *what : std::string());
  }, WaitStyle::kPatient);
  return result;
}

double MpiControl::max(double value, const std::string* what) {
  return all_reduce(value, MPI_MAX, "agreeing on the slowest rank's time", what);
}

double MpiControl::min(double value, const std::string* what) {
  return all_reduce(value, MPI_MIN, "agreeing on the fastest rank's time", what);
}

double MpiControl::mean(double value, const std::string* what) {
  return all_reduce(value, MPI_SUM, "agreeing on the ranks' average time", what) / size_;
}

double MpiControl::from_root(double value, const std::string* what) {
  MPI_Request request;
  WB_MPI_CHECK(MPI_Ibcast(&value, 1, MPI_DOUBLE, 0, comm_, &request));
  wait_all_with_deadline({&request, 1}, timeout_, [what] {
    return "taking rank 0's time" + (what ? " of " + *what : std::string());
  }, WaitStyle::kPatient);
  return value;
}

std::uint64_t MpiControl::sum(std::uint64_t value) {
  std::uint64_t result = 0;
  MPI_Request request;
  WB_MPI_CHECK(MPI_Iallreduce(&value, &result, 1, MPI_UINT64_T, MPI_SUM, comm_, &request));
  wait_all_with_deadline({&request, 1}, timeout_, [] { return std::string("summing across ranks"); }, WaitStyle::kPatient);
  return result;
}

std::vector<double> MpiControl::all_gather_values(double value, const std::string* what) {
  std::vector<double> values(static_cast<std::size_t>(size_));
  MPI_Request request;
  WB_MPI_CHECK(MPI_Iallgather(&value, 1, MPI_DOUBLE, values.data(), 1, MPI_DOUBLE, comm_, &request));
  wait_all_with_deadline({&request, 1}, timeout_, [what] {
    return "gathering every rank's time" + (what ? " of " + *what : std::string());
  }, WaitStyle::kPatient);
  return values;
}

std::vector<double> MpiControl::all_gather_values(const std::vector<double>& values, std::size_t count,
                                              const std::string* what) {
  if (values.size() != count || count > static_cast<std::size_t>(INT_MAX))
    throw std::logic_error("all_gather_values: " + std::to_string(values.size()) + " values where " +
                           std::to_string(count) + " were agreed");
  std::vector<double> all(static_cast<std::size_t>(size_) * count);
  MPI_Request request;
  WB_MPI_CHECK(MPI_Iallgather(values.data(), static_cast<int>(count), MPI_DOUBLE, all.data(), static_cast<int>(count),
                              MPI_DOUBLE, comm_, &request));
  wait_all_with_deadline({&request, 1}, timeout_, [what] {
    return "gathering every rank's flow times" + (what ? " of " + *what : std::string());
  }, WaitStyle::kPatient);
  return all;
}

void MpiControl::barrier(const std::string* what) {
  MPI_Request request;
  WB_MPI_CHECK(MPI_Ibarrier(comm_, &request));
  wait_all_with_deadline({&request, 1}, timeout_, [what] {
    return "waiting for all ranks" + (what ? " at " + *what : std::string());
  }, WaitStyle::kPatient);
}

std::vector<std::string> MpiControl::all_gather(const std::string& text) {
  // Lengths first, then the texts, so any length goes through whole (host names, traces).
  if (text.size() > static_cast<std::size_t>(INT_MAX)) throw CallError("text too long to gather across ranks");
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_));
  MPI_Request request;
  WB_MPI_CHECK(MPI_Iallgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm_, &request));
  wait_all_with_deadline({&request, 1}, timeout_, [] { return std::string("gathering text lengths across ranks"); }, WaitStyle::kPatient);
  std::vector<int> offsets(static_cast<std::size_t>(size_));
  std::size_t total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    if (total + static_cast<std::size_t>(lengths[r]) > static_cast<std::size_t>(INT_MAX))
      throw CallError("texts too long to gather across ranks");
    offsets[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(lengths[r]);
  }
  std::vector<char> all(std::max<std::size_t>(total, 1));
  WB_MPI_CHECK(MPI_Iallgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                               comm_, &request));
  wait_all_with_deadline({&request, 1}, timeout_, [] { return std::string("gathering texts across ranks"); }, WaitStyle::kPatient);
  std::vector<std::string> texts;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    texts.emplace_back(all.data() + offsets[r], static_cast<std::size_t>(lengths[r]));
  return texts;
}

}  // namespace wb

namespace wb {

std::optional<std::string> MpiControl::first_reason(const std::optional<std::string>& mine) {
  const auto all = all_gather(mine.value_or(""));
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty()) return "rank " + std::to_string(r) + ": " + all[r];
  return std::nullopt;
}

}  // namespace wb
