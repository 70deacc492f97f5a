// The keeper turns a rank's death by a signal into an exit code for Hydra's proxy, and stays out of
// the way elsewhere.
#include "harness/rank_keeper.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

namespace wb {
namespace {

// Runs `rank_body` in a process that calls the keeper under `local_ranks` ranks of a Hydra proxy
// (PMI_FD and MPI_LOCALNRANKS set): returns the wait status the proxy would see.
int status_the_proxy_sees(const char* local_ranks, void (*rank_body)()) {
  const pid_t proxy_child = fork();
  if (proxy_child == 0) {
    setenv("PMI_FD", "9", 1);
    setenv("MPI_LOCALNRANKS", local_ranks, 1);
    keep_rank_process_if_hydra_would_take_its_node_mates();
    rank_body();  // the rank (or, with no keeper, the process itself)
    _exit(0);
  }
  int status = 0;
  waitpid(proxy_child, &status, 0);
  return status;
}

TEST(RankKeeper, ARankKilledBesideOthersIsAnExitForTheProxy) {
  const int status = status_the_proxy_sees("2", [] { raise(SIGKILL); });
  ASSERT_TRUE(WIFEXITED(status)) << "the proxy would see a signal and SIGKILL the node-mates";
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGKILL);
}

TEST(RankKeeper, ARanksOwnExitCodeGoesThrough) {
  const int status = status_the_proxy_sees("2", [] { _exit(3); });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
}

TEST(RankKeeper, AloneUnderItsProxyThereIsNoKeeper) {
  const int status = status_the_proxy_sees("1", [] { raise(SIGKILL); });
  ASSERT_TRUE(WIFSIGNALED(status));  // nothing to protect: the process is the rank
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

}  // namespace
}  // namespace wb
