// The frame of every multi-rank binary: MPI up and down, and every failure turned into a message
// naming the rank and an exit code (docs/results.md): bad usage 3, infrastructure 2.
//
//   int main(int argc, char** argv) {
//     wb::MpiProgram program(argc, argv);
//     Options options;
//     if (!program.parse([&] { options = parse(argc, argv); })) return wb::kExitUsage;
//     return program.run([&] { return measure(options); });
//   }
#pragma once

#include <functional>
#include <memory>
#include <map>
#include <string>
#include <vector>

#include "harness/command_line.h"
#include "harness/run_metadata.h"

namespace wb {

class LibraryDeadline;

class MpiProgram {
 public:
  // `thread_level`: the MPI thread support the program needs (an MPI_THREAD_* value; FUNNELED when
  // not given). A library that offers less ends the program with a message and exit code 2.
  MpiProgram(int& argc, char**& argv, int thread_level = -1);
  ~MpiProgram();
  MpiProgram(const MpiProgram&) = delete;
  MpiProgram& operator=(const MpiProgram&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& host() const { return host_; }

  // Runs a parse step that every rank performs identically, before any communication. A
  // UsageError is printed once (by rank 0) and the function returns false: the caller exits 3.
  bool parse(const std::function<void()>& step);

  // Runs the program's body and returns its exit code. Any exception is printed with this rank's
  // label, `on_failure` is given the message (to record what was interrupted), and the whole job
  // is aborted with the exception's exit code, so that no rank is left waiting.
  int run(const std::function<int()>& body,
          const std::function<void(const std::string&)>& on_failure = {});

  // meta.json's content for this run: the hosts of all ranks (each once, in rank order), ranks,
  // command line, the MPI library's version besides `versions` (the GPU libraries'), the recorded
  // environment and the project's revision.
  RunMetadata run_metadata(const std::vector<std::string>& rank_hosts, const CommandLine& args,
                           std::map<std::string, std::string> versions) const;

 private:
  int rank_ = 0, size_ = 1;
  std::string host_;
  bool aborted_ = false;
  // Armed when the body has returned: a hang in MPI_Finalize ends the process with exit code 2
  // and a message naming it.
  std::unique_ptr<LibraryDeadline> shutdown_;
};

}  // namespace wb
