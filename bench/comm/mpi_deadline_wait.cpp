#include "comm/mpi_deadline_wait.h"

#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "harness/checked_mpi.h"
#include "harness/crash_report.h"

namespace wb {
namespace {
std::string& label_storage() {
  static std::string label = "rank ?";
  return label;
}
}  // namespace

void set_rank_label(std::string label) { label_storage() = std::move(label); }
const std::string& rank_label() { return label_storage(); }

void throw_timeout(const std::string& what, std::chrono::milliseconds timeout, const std::string& hint) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", std::chrono::duration<double>(timeout).count());
  throw TimeoutError(rank_label() + ": " + what + " did not complete within " + seconds + " s; " + hint);
}

void abort_job_after_message(int code) {
  on_crash({});  // the message is out: whatever MPI_Abort does on its way is not a crash to report
  std::fflush(stderr);
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

MPI_Comm duplicate_returning_errors(MPI_Comm parent, int& rank, int& size) {
  MPI_Comm comm = MPI_COMM_NULL;
  WB_MPI_CHECK(MPI_Comm_dup(parent, &comm));
  WB_MPI_CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  WB_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  WB_MPI_CHECK(MPI_Comm_size(comm, &size));
  return comm;
}

namespace {

using Clock = std::chrono::steady_clock;

// Polls MPI_Testall on `requests` until they are done; past `deadline`, a TimeoutError.
void poll_until_done(std::span<MPI_Request> requests, Clock::time_point start, std::chrono::milliseconds timeout,
                     const std::function<std::string()>& what, WaitStyle style) {
  // Reading the clock costs about as much as a poll; look at it every few hundred polls only.
  constexpr unsigned kPollsPerClockRead = 256;
  const auto deadline = start + timeout;
  bool napping = false;
  for (unsigned polls = 1;; ++polls) {
    int done = 0;
    WB_MPI_CHECK(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                             MPI_STATUSES_IGNORE));
    if (done) return;
    if (napping) std::this_thread::sleep_for(std::chrono::microseconds(50));
    if (napping || polls % kPollsPerClockRead == 0) {
      const auto now = Clock::now();
      if (now > deadline) throw_timeout(what(), timeout, "the peer rank may have died, hung or be unreachable");
      napping = style == WaitStyle::kPatient && now - start > std::chrono::milliseconds(1);
      // Give the core away now and then: with more ranks than cores (tests, CI) a spinning rank
      // would starve the very peer it waits for. Costs nothing when the wait is short.
      sched_yield();
    }
  }
}

}  // namespace

void wait_all_with_deadline(std::span<MPI_Request> requests, std::chrono::milliseconds timeout,
                            const std::function<std::string()>& what, WaitStyle style) {
  const auto start = Clock::now();
  // One request at a time, in order: MPI_Test on the first still open (each call drives MPI's
  // progress for all of them). Against MPI_Waitall (which cannot time out), MPICH 5.0.2 here: 2x
  // the rate at 8 B - 1 KiB, 1.05-1.25x at 8-128 KiB both ways; MPI_Testall over a window of 64 at
  // every turn cost a third of the small-message rate, and the window's last receive polled alone,
  // then MPI_Testall, 5-20% of osu_bibw's at 8-128 KiB (bench/MEASUREMENTS.md, issue 27).
  for (std::size_t i = 0; i < requests.size(); ++i) poll_until_done(requests.subspan(i, 1), start, timeout, what, style);
}

void wait_each_with_deadline(std::span<MPI_Request> requests, std::chrono::milliseconds timeout,
                             const std::function<void(std::size_t)>& completed,
                             const std::function<std::string()>& what) {
  constexpr unsigned kPollsPerClockRead = 256;
  const auto deadline = Clock::now() + timeout;
  std::vector<int> indices(requests.size());
  std::size_t open = requests.size();
  for (unsigned polls = 1; open > 0; ++polls) {
    int count = 0;
    WB_MPI_CHECK(MPI_Testsome(static_cast<int>(requests.size()), requests.data(), &count, indices.data(),
                              MPI_STATUSES_IGNORE));
    if (count == MPI_UNDEFINED) break;  // every request was already complete
    for (int k = 0; k < count; ++k) completed(static_cast<std::size_t>(indices[static_cast<std::size_t>(k)]));
    open -= static_cast<std::size_t>(count);
    if (open > 0 && polls % kPollsPerClockRead == 0) {
      if (Clock::now() > deadline) throw_timeout(what(), timeout, "the peer rank may have died, hung or be unreachable");
      sched_yield();  // more ranks than cores: let the peers this rank waits for run
    }
  }
}

}  // namespace wb
