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
std::atomic<int> g_launcher_notices{0};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One field per line: job, label, process space, pid, heartbeat_ms, in, last_finished, progress_ms.
struct Entry {
  std::string job, label, space, in, last_finished;
  long pid = 0;
  std::int64_t heartbeat_ms = 0, progress_ms = 0;
};

bool read_entry(const std::string& path, Entry& e) {
  std::ifstream in(path);
  std::string pid, beat;
  if (!std::getline(in, e.job) || !std::getline(in, e.label) || !std::getline(in, e.space) || !std::getline(in, pid) ||
      !std::getline(in, beat))
    return false;
  std::string progress;
  std::getline(in, e.in);
  std::getline(in, e.last_finished);
  std::getline(in, progress);
  try {
    e.pid = std::stol(pid);
    e.heartbeat_ms = std::stoll(beat);
    e.progress_ms = progress.empty() ? e.heartbeat_ms : std::stoll(progress);
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

enum class ProcessState { kUnknown, kRunning, kStopped, kGone };

// What this rank can tell about a peer's process: running, stopped, gone (a zombie not yet reaped
// is gone), or nothing (another machine or PID namespace).
ProcessState process_state(const Entry& e, const std::string& my_space) {
  if (e.space != my_space || my_space.find('?') != std::string::npos) return ProcessState::kUnknown;
  if (kill(static_cast<pid_t>(e.pid), 0) != 0) return ProcessState::kGone;
  std::ifstream status("/proc/" + std::to_string(e.pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("State:")) continue;
    const std::size_t code = line.find_first_not_of(" \t", 6);
    if (code == std::string::npos) break;
    if (line[code] == 'T' || line[code] == 't') return ProcessState::kStopped;
    if (line[code] == 'Z' || line[code] == 'X') return ProcessState::kGone;
    return ProcessState::kRunning;
  }
  return ProcessState::kGone;  // no /proc entry: it went between the two looks
}

std::string seconds_text(std::int64_t ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", static_cast<double>(ms) / 1000.0);
  return text;
}

std::string where_text(const Entry& e) {
  return (e.in.empty() ? "" : ", in " + e.in) +
         (e.last_finished.empty() || e.last_finished == e.in ? "" : ", after finishing " + e.last_finished);
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
  std::fprintf(f, "%s\n%s\n%s\n%ld\n%lld\n%s\n%s\n%lld\n", job_.c_str(), label_.c_str(), space_.c_str(),
               static_cast<long>(getpid()), static_cast<long long>(now_ms()), in_.c_str(), last_finished_.c_str(),
               static_cast<long long>(progress_ms_));
  std::fclose(f);
  std::rename(aside.c_str(), path.c_str());
}

void RankPresence::entering(const std::string& what) {
  std::lock_guard lock(mutex_);
  in_ = what;
  progress_ms_ = now_ms();
  write_locked();
}

void RankPresence::finished(const std::string& what) {
  std::lock_guard lock(mutex_);
  in_.clear();
  last_finished_ = what;
  progress_ms_ = now_ms();
  write_locked();
}

// What one peer's file says about it, seen from a rank waiting in case `in`: at fault (with the
// words that name it), waiting in the same case, or nothing to say.
RankPresence::Standing RankPresence::standing_of(int rank, std::int64_t now, const std::string& in,
                                                 std::chrono::milliseconds silent_after) const {
  Entry e;
  if (!read_entry(path_of(rank), e) || e.job != job_) {
    if (!std::filesystem::exists(dir_)) return {};
    return {Standing::kAtFault, "rank " + std::to_string(rank) + " never reported for this job"};
  }
  const ProcessState state = process_state(e, space_);
  const std::int64_t silent_ms = now - e.heartbeat_ms, still_ms = now - e.progress_ms;
  const std::string silent = e.label + " (pid " + std::to_string(e.pid) + ") stopped answering " +
                             seconds_text(silent_ms) + " s ago" + where_text(e);
  if (state == ProcessState::kGone)  // at once: a peer killed a moment ago still has a fresh heartbeat
    return {Standing::kAtFault, silent + "; the process is gone (killed or exited)"};
  if (state == ProcessState::kStopped) return {Standing::kAtFault, silent + "; the process is stopped"};
  if (silent_ms > silent_after.count())  // its heartbeat thread is silent: gone, stopped, or cut off
    return {Standing::kAtFault, silent};
  if (e.in == in) return e.in.empty() ? Standing{} : Standing{Standing::kWaiting, e.label};  // with this rank
  if (still_ms > silent_after.count())  // alive, but not where the others wait
    return {Standing::kAtFault, e.label + " (pid " + std::to_string(e.pid) + ") is alive but has not moved on for " +
                                    seconds_text(still_ms) + " s" + (e.in.empty() ? ", between cases" : "") +
                                    where_text(e)};
  return {};
}

std::string RankPresence::peers_that_are(Standing::Kind kind, std::chrono::milliseconds silent_after) const {
  std::string in;
  {
    std::lock_guard lock(mutex_);
    in = in_;
  }
  const std::int64_t now = now_ms();
  const char* separator = kind == Standing::kAtFault ? "; " : ", ";
  std::string out = kind == Standing::kWaiting ? label_ : "";  // this rank waits too
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    const Standing standing = standing_of(r, now, in, silent_after);
    if (standing.kind != kind) continue;
    out += (out.empty() ? "" : separator) + standing.words;
  }
  return out;
}

std::string RankPresence::silent_peers(std::chrono::milliseconds silent_after) const {
  return peers_that_are(Standing::kAtFault, silent_after);
}

std::string RankPresence::waiting_peers(std::chrono::milliseconds silent_after) const {
  return peers_that_are(Standing::kWaiting, silent_after);
}

void set_rank_presence(RankPresence* presence) { g_presence.store(presence); }

std::string silent_peers_note() {
  const RankPresence* presence = g_presence.load();
  if (presence == nullptr) return "";
  const std::string peers = presence->silent_peers();
  if (peers.empty()) return "";
  const int notices = launcher_notices();
  return " [at fault: " + peers + "; waiting because of it: " + presence->waiting_peers() +
         (notices > 0 ? "; the launcher reported " + std::to_string(notices) + " process end(s) in the job" : "") + "]";
}

void note_launcher_notice() { g_launcher_notices.fetch_add(1, std::memory_order_relaxed); }
int launcher_notices() { return g_launcher_notices.load(std::memory_order_relaxed); }

}  // namespace wb
