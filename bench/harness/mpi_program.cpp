#include "harness/mpi_program.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <exception>
#include <unistd.h>

#include "comm/mpi_deadline_wait.h"
#include "harness/crash_report.h"
#include "harness/errors.h"
#include "harness/rank_presence.h"
#include "harness/version.h"

extern char** environ;

namespace wb {

// A deadline on MPI_Finalize. A finalize that hangs is a fault of the MPI library (seen with
// Debian's MPICH 4.0.2 over UCX/TCP, openucx/ucx#8738: docs/mpi-and-slurm.md), and it is reported
// as one: named, with exit code 2, never passed off as success. The results were written before.
class ShutdownDeadline {
 public:
  explicit ShutdownDeadline(std::chrono::seconds limit)
      : thread_([this, limit] {
          std::unique_lock lock(mutex_);
          if (!done_cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::fprintf(stderr, "error: %s: MPI_Finalize did not return within %lld s: the MPI library hung in "
                                 "its shutdown (every result was written before) (exit code %d)\n",
                         rank_label().c_str(), static_cast<long long>(limit.count()), kExitInfrastructure);
            std::fflush(stderr);
            std::_Exit(kExitInfrastructure);
          }
        }) {}
  ~ShutdownDeadline() {
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

MpiProgram::MpiProgram(int& argc, char**& argv, int thread_level) {
  // A write to a socket or pipe whose other end has gone (a peer or the launcher's forwarder that
  // ended first, seen at the end of a run on the virtual cluster: exit 141) fails with EPIPE
  // instead of killing the rank; every result is in results.csv by then. Before MPI_Init, so a
  // library that wants its own handler still installs it.
  std::signal(SIGPIPE, SIG_IGN);
  const int required = thread_level < 0 ? MPI_THREAD_FUNNELED : thread_level;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, required, &provided);
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
    shutdown_ = std::make_unique<ShutdownDeadline>(std::chrono::seconds(30));
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
    shutdown_ = std::make_unique<ShutdownDeadline>(std::chrono::seconds(30));
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
