#include "comm/watchdog.h"

#include <cstdio>
#include <cstdlib>

#include "comm/mpi_deadline_wait.h"
#include "harness/errors.h"

namespace wb {

Watchdog::Watchdog(std::function<void(const std::string&)> last_words)
    : last_words_(std::move(last_words)), thread_([this] { watch(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::chrono::milliseconds timeout, std::string what) {
  {
    std::lock_guard lock(mutex_);
    armed_ = true;
    timeout_ = timeout;
    deadline_ = std::chrono::steady_clock::now() + timeout;
    what_ = std::move(what);
  }
  changed_.notify_all();
}

void Watchdog::disarm() {
  std::lock_guard lock(mutex_);
  armed_ = false;
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!armed_) {
      changed_.wait(lock);
      continue;
    }
    if (changed_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", std::chrono::duration<double>(timeout_).count());
      const std::string message = rank_label() + ": " + what_ + " did not complete within " + seconds +
                                  " s; a peer rank may have died, hung or be unreachable";
      std::fprintf(stderr, "error: %s (exit code %d)\n", message.c_str(), kExitInfrastructure);
      std::fflush(stderr);
      if (last_words_) last_words_(message);
      std::_Exit(kExitInfrastructure);  // MPI cannot be called from this thread; the launcher ends the job
    }
  }
}

}  // namespace wb
