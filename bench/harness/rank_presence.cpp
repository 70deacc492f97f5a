#include "harness/rank_presence.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace wb {
namespace {

std::atomic<RankPresence*> g_presence{nullptr};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One field per line: job, label, process space, pid, heartbeat_ms, in, last_finished.
struct Entry {
  std::string job, label, space, in, last_finished;
  long pid = 0;
  std::int64_t heartbeat_ms = 0;
};

bool read_entry(const std::string& path, Entry& e) {
  std::ifstream in(path);
  std::string pid, beat;
  if (!std::getline(in, e.job) || !std::getline(in, e.label) || !std::getline(in, e.space) || !std::getline(in, pid) ||
      !std::getline(in, beat))
    return false;
  std::getline(in, e.in);
  std::getline(in, e.last_finished);
  try {
    e.pid = std::stol(pid);
    e.heartbeat_ms = std::stoll(beat);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

// The kernel (boot id) and PID namespace this process lives in: two ranks with the same one can
// look at each other's pid (namespace nodes of the virtual cluster share it, hostnames aside).
std::string process_space() {
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(boot, id);
  std::error_code error;
  const auto ns = std::filesystem::read_symlink("/proc/self/ns/pid", error);
  return id + " " + (error ? std::string("?") : ns.string());
}

// What this rank can tell about a peer's process: stopped, gone, or nothing (another machine).
std::string process_state(const Entry& e, const std::string& my_space) {
  if (e.space != my_space || my_space.find('?') != std::string::npos) return "";
  if (kill(static_cast<pid_t>(e.pid), 0) != 0) return "; the process is gone (killed or exited)";
  std::ifstream status("/proc/" + std::to_string(e.pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("State:") && line.find('T') != std::string::npos) return "; the process is stopped";
  return "";
}

}  // namespace

RankPresence::RankPresence(std::string dir, int rank, int size, std::string label, std::string job)
    : dir_(std::move(dir)), rank_(rank), size_(size), label_(std::move(label)), job_(std::move(job)),
      space_(process_space()) {
  std::error_code ignored;
  std::filesystem::create_directories(dir_, ignored);
  {
    std::lock_guard lock(mutex_);
    write_locked();
  }
  beat_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stopping_; })) write_locked();
  });
}

RankPresence::~RankPresence() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  beat_.join();
  std::error_code ignored;
  std::filesystem::remove(path_of(rank_), ignored);
  std::filesystem::remove(dir_, ignored);  // the last rank out removes the folder (only when empty)
}

std::string RankPresence::path_of(int rank) const { return dir_ + "/rank-" + std::to_string(rank); }

void RankPresence::write_locked() {
  // Written aside and renamed: a reader sees the old line or the new one, never half of one.
  const std::string path = path_of(rank_), aside = path + ".new";
  std::FILE* f = std::fopen(aside.c_str(), "w");
  if (f == nullptr) return;  // best effort: a presence that cannot be written says nothing
  std::fprintf(f, "%s\n%s\n%s\n%ld\n%lld\n%s\n%s\n", job_.c_str(), label_.c_str(), space_.c_str(),
               static_cast<long>(getpid()),
               static_cast<long long>(now_ms()), in_.c_str(), last_finished_.c_str());
  std::fclose(f);
  std::rename(aside.c_str(), path.c_str());
}

void RankPresence::entering(const std::string& what) {
  std::lock_guard lock(mutex_);
  in_ = what;
  write_locked();
}

void RankPresence::finished(const std::string& what) {
  std::lock_guard lock(mutex_);
  in_.clear();
  last_finished_ = what;
  write_locked();
}

std::string RankPresence::silent_peers(std::chrono::milliseconds silent_after) const {
  std::ostringstream out;
  const std::int64_t now = now_ms();
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    Entry e;
    const bool known = read_entry(path_of(r), e);
    std::string clause;
    if (!known || e.job != job_) {
      if (std::filesystem::exists(dir_)) clause = "rank " + std::to_string(r) + " never reported for this job";
    } else if (const std::string state = process_state(e, space_);
               now - e.heartbeat_ms > silent_after.count() || state.find("gone") != std::string::npos) {
      // silent for long, or gone already (a failure right after a peer was killed: its heartbeat
      // is still fresh, but its process is not there)
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", static_cast<double>(now - e.heartbeat_ms) / 1000.0);
      clause = e.label + " (pid " + std::to_string(e.pid) + ") stopped answering " + seconds + " s ago" +
               (e.in.empty() ? "" : ", in " + e.in) +
               (e.last_finished.empty() || e.last_finished == e.in ? "" : ", after finishing " + e.last_finished) +
               state;
    }
    if (clause.empty()) continue;
    if (out.tellp() > 0) out << "; ";
    out << clause;
  }
  return out.str();
}

void set_rank_presence(RankPresence* presence) { g_presence.store(presence); }

std::string silent_peers_note() {
  const RankPresence* presence = g_presence.load();
  if (presence == nullptr) return "";
  const std::string peers = presence->silent_peers();
  return peers.empty() ? "" : " [at fault: " + peers + "]";
}

}  // namespace wb
