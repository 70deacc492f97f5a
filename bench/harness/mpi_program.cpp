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
#include <exception>

#include "comm/mpi_deadline_wait.h"
#include "harness/errors.h"
#include "harness/version.h"

extern char** environ;

namespace wb {

class ShutdownDeadline {
 public:
  ShutdownDeadline(int code, std::chrono::seconds limit)
      : thread_([this, code, limit] {
          std::unique_lock lock(mutex_);
          if (!done_cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::fprintf(stderr, "warning: %s: MPI did not shut down within %lld s; ending with exit code %d "
                                 "(every result was written before)\n",
                         rank_label().c_str(), static_cast<long long>(limit.count()), code);
            std::fflush(stderr);
            std::_Exit(code);
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
}

MpiProgram::~MpiProgram() {
  // WB_SKIP_MPI_FINALIZE=1 (set by ci/vcluster, where MPICH runs over UCX/TCP): there MPI_Finalize
  // hangs now and then, a rank that reached its PMI barrier no longer progressing the TCP
  // endpoints its peers are still closing (openucx/ucx#8738); and a job where some ranks finalize
  // and others are cut off by the deadline confuses Hydra. Every result is written once all ranks
  // pass the barrier below, so all ranks leave the same way: at once, without finalizing.
  const char* skip = std::getenv("WB_SKIP_MPI_FINALIZE");
  if (!aborted_ && shutdown_ && skip != nullptr && std::string(skip) == "1") {
    // Past this point an MPI error (a peer already gone) must not turn a finished run into a
    // failure. After the barrier each rank lingers, still progressing MPI, so that a peer still
    // finishing the barrier gets its messages and no socket is closed with data unread (which
    // resets the connection under that peer: exit code 1 from Hydra, seen once).
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);  // under the shutdown deadline
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (std::chrono::steady_clock::now() < until) {
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(exit_code_);
  }
  if (!aborted_) MPI_Finalize();
  shutdown_.reset();  // finalized in time: stand the deadline down
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
  try {
    const int result = body();
    exit_code_ = result;
    shutdown_ = std::make_unique<ShutdownDeadline>(result, std::chrono::seconds(20));
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
  aborted_ = true;
  // MPI_Abort races the launcher's forwarding of this rank's stderr: Hydra can tear the job down
  // before the message above reaches the console (seen once in CI). A short pause lets it through.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  MPI_Abort(MPI_COMM_WORLD, code);
  return code;
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
