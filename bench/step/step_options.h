// wb-step's command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/command_line.h"
#include "runner/multi_rank_benchmarks.h"
#include "step/strategy.h"
#include "step/what_if.h"

namespace wb::step {

struct StepOptions {
  HarnessOptions harness;
  std::string model = "tiny";
  std::string backend = "mpi";
  std::vector<Strategy> strategies;
  StepSettings settings;  // ranks and shard_group filled at run time
  std::optional<int> shard_group;
  double scale = 1;
  bool measure_tflops = false;
  double gpu_memory_GB = 80;
  std::optional<std::string> fits;
  std::optional<std::string> calibration;  // another run's step_calibration.csv
  std::optional<WhatIfRequest> what_if;
  std::optional<Algorithm> forced_algorithm;  // a measured run's --algorithm (step/forced_algorithm.h)
  std::string wiring;
  std::optional<std::string> link_class;
};

StepOptions parse_step_options(CommandLine& args);
// --help: from the same declarations as the parser.
std::string step_help();

}  // namespace wb::step
