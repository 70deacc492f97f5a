// A deadline for calls that cannot be polled (blocking MPI collectives, as users run them): armed
// before the call, disarmed after. If the call is still running at the deadline, the watchdog
// prints which rank waited for what, runs the program's last words (an ERROR row) and ends the
// process with exit code 2; the launcher then ends the job.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace wb {

class Watchdog {
 public:
  explicit Watchdog(std::function<void(const std::string&)> last_words = {});
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(std::chrono::milliseconds timeout, std::string what);
  void disarm();

  // Armed for the lifetime of a scope.
  class Guard {
   public:
    Guard(Watchdog& dog, std::chrono::milliseconds timeout, std::string what) : dog_(dog) {
      dog_.arm(timeout, std::move(what));
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
  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false, stopping_ = false;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::milliseconds timeout_{0};
  std::string what_;
  std::thread thread_;
};

}  // namespace wb
