// A failing rank names the peer at fault from the peers' heartbeat files.
#include "harness/rank_presence.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace wb {
namespace {

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A peer entry like rank 0's own (same job, same machine and PID namespace) for `pid`, in case
// `in`, last moving on at `progress_ms` (its heartbeat's time when not given).
void write_peer(const std::filesystem::path& dir, long pid, long long heartbeat_ms, const std::string& in = "coll/x",
                long long progress_ms = -1) {
  auto mine = lines_of(dir / "rank-0");
  std::ofstream out(dir / "rank-1");
  out << mine[0] << "\nrank 1 on nodeB\n" << mine[2] << "\n" << pid << "\n" << heartbeat_ms << "\n" << in << "\n\n"
      << (progress_ms < 0 ? heartbeat_ms : progress_ms) << "\n";
}

TEST(RankPresence, APeerWhoseProcessIsGoneIsNamedAtOnce) {
  const auto dir = std::filesystem::temp_directory_path() / ("wb-presence-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  RankPresence presence(dir.string(), 0, 2, "rank 0 on nodeA", "job-1");
  const long long fresh = std::stoll(lines_of(dir / "rank-0")[4]);
  // A live peer with a fresh heartbeat: nothing to say.
  write_peer(dir, static_cast<long>(getppid()), fresh);
  EXPECT_EQ(presence.silent_peers(), "");
  // A peer killed a moment ago: its heartbeat is still fresh, its process is gone.
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  write_peer(dir, static_cast<long>(child), fresh);
  const std::string note = presence.silent_peers();
  EXPECT_NE(note.find("rank 1 on nodeB (pid " + std::to_string(child) + ") stopped answering"), std::string::npos) << note;
  EXPECT_NE(note.find("the process is gone"), std::string::npos) << note;
  // A live peer silent for a minute: named as silent.
  write_peer(dir, static_cast<long>(getppid()), fresh - 60000);
  EXPECT_NE(presence.silent_peers().find("stopped answering 60"), std::string::npos) << presence.silent_peers();
  std::filesystem::remove_all(dir);
}

// The heartbeat goes on while the main thread waits (a blocked MPI call stops nothing but
// progress): a live peer in the case this rank waits in is waiting, not at fault; a live peer
// elsewhere that has not moved on for long is at fault; a stopped one is named as stopped.
TEST(RankPresence, TellsThePeerAtFaultFromThePeersThatWait) {
  const auto dir = std::filesystem::temp_directory_path() / ("wb-presence-wait-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  RankPresence presence(dir.string(), 0, 2, "rank 0 on nodeA", "job-1");
  presence.entering("coll/x");
  const long long fresh = std::stoll(lines_of(dir / "rank-0")[4]);
  const long alive = static_cast<long>(getppid());
  write_peer(dir, alive, fresh, "coll/x", fresh - 60000);  // in the same call for a minute: waiting
  EXPECT_EQ(presence.silent_peers(), "");
  EXPECT_EQ(presence.waiting_peers(), "rank 0 on nodeA, rank 1 on nodeB");
  write_peer(dir, alive, fresh, "", fresh - 60000);  // alive, between cases for a minute: at fault
  std::string note = presence.silent_peers();
  EXPECT_NE(note.find("rank 1 on nodeB (pid " + std::to_string(alive) + ") is alive but has not moved on for 60"),
            std::string::npos) << note;
  EXPECT_NE(note.find("between cases"), std::string::npos) << note;
  EXPECT_EQ(presence.waiting_peers(), "rank 0 on nodeA");
  write_peer(dir, alive, fresh, "coll/w", fresh - 1000);  // elsewhere but moving on: nothing to say
  EXPECT_EQ(presence.silent_peers(), "");
  const pid_t child = fork();  // a stopped peer: named as stopped at once, whatever its heartbeat
  if (child == 0) {
    pause();
    _exit(0);
  }
  kill(child, SIGSTOP);
  for (int i = 0; i < 200; ++i) {  // until the kernel shows it stopped
    std::ifstream status("/proc/" + std::to_string(child) + "/status");
    std::string text((std::istreambuf_iterator<char>(status)), {});
    if (text.find("State:\tT") != std::string::npos) break;
    usleep(5000);
  }
  write_peer(dir, static_cast<long>(child), fresh, "coll/x");
  note = presence.silent_peers();
  EXPECT_NE(note.find("the process is stopped"), std::string::npos) << note;
  EXPECT_EQ(presence.waiting_peers(), "rank 0 on nodeA");
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wb
