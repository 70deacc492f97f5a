// The main() of the benchmark binaries: MPI up, --help (from the options' declarations), the parse step (every rank alike, before
// any communication), the run, and on a failure the interrupted case written as an ERROR row.
// `Run` is built as Run(program, options, args) and offers run() and harness().
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

#include "harness/command_line.h"
#include "harness/errors.h"
#include "runner/mpi_program.h"
#include "harness/version.h"

namespace wb {

template <typename Run, typename Options>
int benchmark_main(int argc, char** argv, const std::function<std::string()>& help,
                   const std::function<Options(CommandLine&, const MpiProgram&)>& parse, int thread_level = -1) {
  if (answer_version(argc, argv)) return kExitOk;
  MpiProgram program(argc, argv, thread_level);
  CommandLine args(argc, argv);
  if (args.asks_for_help()) {
    if (program.rank() == 0) std::fputs(help().c_str(), stdout);
    return kExitOk;
  }
  Options options;
  if (!program.parse([&] { options = parse(args, program); })) return kExitUsage;
  std::unique_ptr<Run> run;  // destroyed before `program`, so before MPI_Finalize
  return program.run(
      [&] {
        run = std::make_unique<Run>(program, options, args);
        return run->run();
      },
      [&](const std::string& why) {
        if (run) run->harness().record_interruption(why);
      });
}

}  // namespace wb
