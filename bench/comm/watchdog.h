// A deadline for calls that cannot be polled (blocking MPI collectives, as users run them): armed
// before the call, disarmed after, each a single atomic store (no clock read, no system call), so
// it can guard an 8-byte all_reduce. A thread looks ten times a second: when it sees the same call
// armed for longer than its timeout, it prints which rank waited for what (and which peer stopped
// answering, from the heartbeats), runs the program's last words (an ERROR row) and aborts the
// job with exit code 2.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace wb {

class Watchdog {
 public:
  explicit Watchdog(std::function<void(const std::string&)> last_words = {},
                    std::chrono::milliseconds poll = std::chrono::milliseconds(100));
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // `what` names the call in the message; it must stay valid until disarm().
  void arm(std::chrono::milliseconds timeout, const std::string* what);
  void disarm();

  // Armed for the lifetime of a scope.
  class Guard {
   public:
    Guard(Watchdog& dog, std::chrono::milliseconds timeout, const std::string* what) : dog_(dog) {
      dog_.arm(timeout, what);
    }
    ~Guard() { dog_.disarm(); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    Watchdog& dog_;
  };

 private:
  void watch();

  std::function<void(const std::string&)> last_words_;
  std::chrono::milliseconds poll_;
  // Odd while a call is armed; every arm and disarm moves it on, so the watcher can tell a call
  // stuck since its last look from a new one.
  std::atomic<std::uint64_t> sequence_{0};
  std::atomic<std::int64_t> timeout_ms_{0};
  std::atomic<const std::string*> what_{nullptr};
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace wb
