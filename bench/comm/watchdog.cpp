#include "comm/watchdog.h"

#include <cstdio>
#include <cstdlib>

#include "comm/mpi_deadline_wait.h"
#include "harness/errors.h"
#include "harness/rank_presence.h"

namespace wb {
namespace {
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Watchdog::Watchdog(std::function<void(const std::string&)> last_words, std::chrono::milliseconds poll)
    : last_words_(std::move(last_words)), poll_(poll), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::chrono::milliseconds timeout, const std::string* what) {
  what_.store(what, std::memory_order_relaxed);
  timeout_ms_.store(timeout.count(), std::memory_order_relaxed);
  sequence_.store(sequence_.load(std::memory_order_relaxed) + 1, std::memory_order_release);  // odd: armed
}

void Watchdog::disarm() { sequence_.store(sequence_.load(std::memory_order_relaxed) + 1, std::memory_order_release); }

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  std::uint64_t seen = 0;
  std::int64_t seen_since_ns = 0;
  while (!stop_.wait_for(lock, poll_, [this] { return stopping_; })) {
    const std::uint64_t sequence = sequence_.load(std::memory_order_acquire);
    if (sequence % 2 == 0) continue;  // nothing armed
    if (sequence != seen) {           // a call this look has not seen before: its clock starts now
      seen = sequence;
      seen_since_ns = now_ns();
      continue;
    }
    if (now_ns() - seen_since_ns < timeout_ms_.load() * 1000000) continue;
    const std::string* what = what_.load(std::memory_order_relaxed);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", static_cast<double>(timeout_ms_.load()) / 1000.0);
    const std::string message = rank_label() + ": " + (what != nullptr ? *what : std::string("a call")) +
                                " did not complete within " + seconds +
                                " s; a peer rank may have died, hung or be unreachable" + silent_peers_note();
    std::fprintf(stderr, "error: %s (exit code %d)\n", message.c_str(), kExitInfrastructure);
    std::fflush(stderr);
    if (last_words_) last_words_(message);
    // The launcher runs with its cleanup off (so that a dead rank does not take the witnesses with
    // it), so this rank ends the job: MPI_Abort from a thread other than main is outside what
    // MPI_THREAD_FUNNELED promises, but MPICH's abort only tells the process manager and exits,
    // and it is the one call that also ends a stopped peer.
    abort_job_after_message(kExitInfrastructure);
  }
}

}  // namespace wb
