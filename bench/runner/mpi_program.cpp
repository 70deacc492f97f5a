#include "runner/mpi_program.h"

#include <mpi.h>

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <exception>
#include <functional>
#include <unistd.h>

#include "comm/mpi_deadline_wait.h"
#include "harness/crash_report.h"
#include "harness/errors.h"
#include "harness/rank_keeper.h"
#include "harness/rank_presence.h"
#include "harness/version.h"

extern char** environ;

namespace wb {

// A deadline on MPI_Finalize. A finalize that hangs is a fault of the MPI library (seen with
// Debian's MPICH 4.0.2 over UCX/TCP, openucx/ucx#8738: docs/mpi-and-slurm.md), and it is reported
// as one: named, with exit code 2, never passed off as success. The results were written before.
// MPI_Init has one too (its message names the launcher and its PMI).
class LibraryDeadline {
 public:
  explicit LibraryDeadline(std::chrono::seconds limit, std::function<std::string()> message = {})
      : thread_([this, limit, message = std::move(message)] {
          std::unique_lock lock(mutex_);
          if (!done_cv_.wait_for(lock, limit, [this] { return done_; })) {
            if (message) {
              std::fprintf(stderr, "%s (exit code %d)\n", message().c_str(), kExitInfrastructure);
            } else {
              std::fprintf(stderr, "error: %s: MPI_Finalize did not return within %lld s: the MPI library hung in "
                                   "its shutdown (every result was written before) (exit code %d)\n",
                           rank_label().c_str(), static_cast<long long>(limit.count()), kExitInfrastructure);
            }
            std::fflush(stderr);
            std::_Exit(kExitInfrastructure);
          }
        }) {}
  ~LibraryDeadline() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};

namespace {

// Hydra run with -disable-auto-cleanup tells the ranks a process of the job ended with SIGUSR1
// (pmiserv_cb.c, CMD_PROCESS_TERMINATED), whose default action ends the process silently: a
// node-mate of a killed rank died with it, its heartbeat stopped, and the survivors named the
// casualty, not the victim. The notice is counted instead (async-signal-safe), and the rank goes
// on waiting until its deadline names the rank at fault.
extern "C" void count_launcher_notice(int) { note_launcher_notice(); }

void count_launcher_notices_unless_handled() {
  struct sigaction current {};
  if (sigaction(SIGUSR1, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) return;  // MPI's own
  struct sigaction counting {};
  counting.sa_handler = count_launcher_notice;
  sigemptyset(&counting.sa_mask);
  counting.sa_flags = SA_RESTART;  // a system call in MPI's progress is resumed, not failed with EINTR
  sigaction(SIGUSR1, &counting, nullptr);
}

// Who started this process and how it meets its peers, from the launcher's environment: for the
// message of an MPI_Init that never returns.
std::string launcher_and_pmi() {
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
  };
  // Hydra's ranks carry MPI_LOCALNRANKS (over Slurm too, where srun starts its proxies); srun's
  // own tasks have a PMI_FD but not that.
  const bool under_srun = !env("SLURM_STEP_ID").empty();
  const bool has_pmi = !env("PMI_PORT").empty() || !env("PMI_FD").empty();
  if (has_pmi && (!env("MPI_LOCALNRANKS").empty() || !under_srun))
    return std::string("mpiexec (Hydra") + (under_srun ? " over Slurm, proxies started by srun" : "") +
           ", PMI at " + (env("PMI_PORT").empty() ? "fd " + env("PMI_FD") : env("PMI_PORT")) +
           "); check that every node reaches mpiexec's host (HYDRA_IFACE) and that no firewall drops the port";
  if (under_srun) {
    std::string pmi = !env("PMIX_RANK").empty()          ? "PMIx"
                      : !env("PMI_FD").empty()           ? "PMI-2 over the fd srun passed (PMI_FD)"
                      : !env("SLURM_MPI_TYPE").empty()   ? "--mpi=" + env("SLURM_MPI_TYPE")
                                                         : "no PMI variable set";
    return "srun (Slurm step " + env("SLURM_JOB_ID") + "." + env("SLURM_STEP_ID") + ", " + pmi +
           "); check srun's --mpi against the MPI library's PMI (docs/mpi-and-slurm.md)";
  }
  if (!env("PMIX_RANK").empty()) return "a PMIx launcher (PMIX_RANK set)";
  return "no launcher this process can see (no PMI or Slurm variable): started by hand as a singleton";
}

std::string rank_before_init() {
  for (const char* name : {"PMI_RANK", "PMIX_RANK", "SLURM_PROCID"})
    if (const char* value = std::getenv(name); value != nullptr) return std::string("rank ") + value;
  return "a rank";
}

// MPI_Init under a deadline (WB_INIT_TIMEOUT seconds, 120 by default): a launcher or PMI that never
// brings the job up ends in our words, naming them, instead of a silent wait. Before MPI_Init, so
// the options (parsed after it) cannot set it; the environment can.
std::chrono::seconds init_limit() {
  const char* text = std::getenv("WB_INIT_TIMEOUT");
  if (text != nullptr) {
    char* end = nullptr;
    const long seconds = std::strtol(text, &end, 10);
    if (end != text && *end == '\0' && seconds > 0) return std::chrono::seconds(seconds);
    std::fprintf(stderr, "warning: WB_INIT_TIMEOUT='%s' is not a whole number of seconds > 0; using 120\n", text);
  }
  return std::chrono::seconds(120);
}

}  // namespace

MpiProgram::MpiProgram(int& argc, char**& argv, int thread_level) {
  keep_rank_process_if_hydra_would_take_its_node_mates();  // first: before MPI, threads and signals
  // A write to a socket or pipe whose other end has gone (a peer or the launcher's forwarder that
  // ended first, seen at the end of a run on the virtual cluster: exit 141) fails with EPIPE
  // instead of killing the rank; every result is in results.csv by then. Before MPI_Init, so a
  // library that wants its own handler still installs it.
  std::signal(SIGPIPE, SIG_IGN);
  const int required = thread_level < 0 ? MPI_THREAD_FUNNELED : thread_level;
  int provided = 0;
  {
    const std::chrono::seconds limit = init_limit();
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::string who = rank_before_init() + " on " + host + " (pid " + std::to_string(getpid()) + ")";
    LibraryDeadline init_deadline(limit, [&who, limit] {
      return "error: " + who + ": MPI_Init did not return within " + std::to_string(limit.count()) +
             " s (WB_INIT_TIMEOUT): the job was never brought up by its launcher: " + launcher_and_pmi();
    });
    MPI_Init_thread(&argc, &argv, required, &provided);
  }
  count_launcher_notices_unless_handled();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  if (provided < required) {
    if (rank_ == 0)
      std::fprintf(stderr, "error: the MPI library offers thread level %d, this program needs %d (exit code %d)\n",
                   provided, required, kExitInfrastructure);
    MPI_Finalize();
    std::exit(kExitInfrastructure);
  }
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  host_.assign(name, static_cast<std::size_t>(length));
  set_rank_label("rank " + std::to_string(rank_) + " on " + host_);
  report_crashes_as(rank_label() + " (pid " + std::to_string(getpid()) + ")");
}

MpiProgram::~MpiProgram() {
  if (!aborted_) MPI_Finalize();
  shutdown_.reset();  // finalized in time: stand the deadline down
  // The ranks leave one after another, 20 ms apart (at most 0.6 s in all). Hydra run with
  // -disable-auto-cleanup (how wirebench keeps survivors alive to name a dead peer) sends SIGUSR1
  // to every other node's proxy whenever a process ends, normal ends included (pmiserv_cb.c,
  // CMD_PROCESS_TERMINATED); when every rank ends at once, it writes to proxies that have just
  // exited, and the job ends with 255 or a proxy's SIGPIPE (141) after every result was written:
  // 3 of 8 runs of 8 namespace nodes (bench/MEASUREMENTS.md). One exit at a time, each proxy's
  // end is seen before the next one's.
  if (!aborted_ && size_ > 1) {
    std::signal(SIGUSR1, SIG_IGN);  // a finalized rank has nothing to learn from Hydra's notices
    const auto step = std::min(std::chrono::milliseconds(20), std::chrono::milliseconds(600) / size_);
    std::this_thread::sleep_for(step * rank_);
  }
}

bool MpiProgram::parse(const std::function<void()>& step) {
  try {
    step();
    return true;
  } catch (const UsageError& e) {
    if (rank_ == 0) std::fprintf(stderr, "error: %s (exit code %d)\n", e.what(), kExitUsage);
    return false;
  }
}

int MpiProgram::run(const std::function<int()>& body,
                    const std::function<void(const std::string&)>& on_failure) {
  int code = kExitInfrastructure;
  std::string message;
  // A crash (seen: a segfault inside MPICH 5's MPI_Iallreduce just after a peer was killed under
  // srun) names the peer at fault and records the interrupted case, as a failure below does.
  on_crash([&on_failure](const std::string& crash) {
    // A peer killed a moment ago may still have a fresh heartbeat: give the heartbeats the few
    // seconds they need to tell (rank_presence.h), so that the message names the peer at fault.
    std::string note = silent_peers_note();
    for (int i = 0; note.empty() && i < 16; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      note = silent_peers_note();
    }
    const std::string full = rank_label() + ": " + crash + note;
    std::fprintf(stderr, "error: %s (exit code %d)\n", full.c_str(), kExitInfrastructure);
    std::fflush(stderr);
    if (on_failure) on_failure(full);
    // The job ends as after any failure, so the launcher reports this exit code, not the signal
    // of a peer that died first (a second crash inside MPI_Abort ends the process by the signal).
    abort_job_after_message(kExitInfrastructure);
  });
  try {
    const int result = body();
    on_crash({});
    shutdown_ = std::make_unique<LibraryDeadline>(std::chrono::seconds(30));
    return result;
  } catch (const UsageError& e) {
    code = kExitUsage;
    message = e.what();
  } catch (const InputError& e) {
    code = kExitUsage;
    message = e.what();
  } catch (const std::exception& e) {
    message = e.what();
  }
  on_crash({});
  message += silent_peers_note();  // the peer at fault, when a heartbeat says which
  // Timeouts already say which rank they happened on.
  const std::string where = message.starts_with(rank_label()) ? "" : rank_label() + ": ";
  std::fprintf(stderr, "error: %s%s (exit code %d)\n", where.c_str(), message.c_str(), code);
  std::fflush(stderr);
  if (on_failure) {
    try {
      on_failure(message);
    } catch (const std::exception&) {
      // recording the interruption is best effort; the abort below matters more
    }
  }
  // Alone (a what-if, a one-rank run) there is no peer to stop: finalize and exit with the code,
  // without MPI_Abort's own lines after ours.
  if (size_ == 1) {
    shutdown_ = std::make_unique<LibraryDeadline>(std::chrono::seconds(30));
    return code;
  }
  aborted_ = true;
  abort_job_after_message(code);
}

RunMetadata MpiProgram::run_metadata(const std::vector<std::string>& rank_hosts, const CommandLine& args,
                                     std::map<std::string, std::string> versions) const {
  RunMetadata meta;
  for (const auto& host : rank_hosts)
    if (std::find(meta.hosts.begin(), meta.hosts.end(), host) == meta.hosts.end()) meta.hosts.push_back(host);
  meta.ranks = size_;
  meta.command_line = args.original();
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(library, &length);
  const std::string version(library, static_cast<std::size_t>(length));
  versions["mpi"] = version.substr(0, version.find('\n'));
  meta.versions = std::move(versions);
  meta.environment = recorded_environment(environ);
  meta.version = project_version();
  meta.revision = project_revision();
  return meta;
}

}  // namespace wb
