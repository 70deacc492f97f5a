#include "harness/rank_keeper.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>

namespace wb {
namespace {

bool several_ranks_under_one_hydra_proxy() {
  // MPI_LOCALNRANKS is Hydra's (over ssh or over Slurm, where srun starts its proxies); srun's own
  // tasks do not have it, and slurmstepd leaves a killed task's node-mates alone.
  if (std::getenv("PMI_FD") == nullptr && std::getenv("PMI_PORT") == nullptr) return false;
  const char* local = std::getenv("MPI_LOCALNRANKS");
  return local != nullptr && std::atoi(local) > 1;
}

}  // namespace

void keep_rank_process_if_hydra_would_take_its_node_mates() {
  if (!several_ranks_under_one_hydra_proxy()) return;
  const pid_t keeper = getpid();
  const pid_t rank = fork();
  if (rank < 0) return;  // no keeper: the rank runs as before
  if (rank == 0) {
    // The rank ends with its keeper (a SIGKILL to the keeper alone must not leave it behind).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != keeper) _exit(2);  // the keeper died before the line above
    return;
  }
  // The keeper. Signals for the job reach the whole process group (Hydra's killpg, a terminal's
  // ^C, Slurm's step signals), the rank included, so the keeper forwards none: it outlives the
  // rank only long enough to turn its end into an exit code. Hydra's SIGUSR1 (a process of the job
  // ended) is the rank's news, not the keeper's.
  signal(SIGUSR1, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  int status = 0;
  while (waitpid(rank, &status, 0) < 0) {
    if (errno != EINTR) _exit(2);
  }
  if (WIFSIGNALED(status)) {
    // The launcher now sees an exit, and says nothing of a signal: say it here, in our words, with
    // the rank that died (its heartbeat's pid is this pid).
    const char* rank_env = std::getenv("PMI_RANK");
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const int code = 128 + WTERMSIG(status);  // as a shell reports it
    std::fprintf(stderr, "error: rank %s on %s (pid %ld): killed by signal %d (%s) (exit code %d)\n",
                 rank_env != nullptr ? rank_env : "?", host, static_cast<long>(rank), WTERMSIG(status),
                 strsignal(WTERMSIG(status)), code);
    std::fflush(stderr);
    _exit(code);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 2);
}

}  // namespace wb
