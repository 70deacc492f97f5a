// A failing rank names the peer at fault from the peers' heartbeat files.
#include "harness/rank_presence.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
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

// A peer entry like rank 0's own (same job, same machine and PID namespace) for `pid`.
void write_peer(const std::filesystem::path& dir, long pid, long long heartbeat_ms) {
  auto mine = lines_of(dir / "rank-0");
  std::ofstream out(dir / "rank-1");
  out << mine[0] << "\nrank 1 on nodeB\n" << mine[2] << "\n" << pid << "\n" << heartbeat_ms << "\ncoll/x\n\n";
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

}  // namespace
}  // namespace wb
