// `wirebench topo`: this node's wiring (or saved nvidia-smi / NCCL text), every path's link class
// and ceiling, as a table, JSON (--json) or a picture (--png FILE).
#pragma once

#include "harness/command_line.h"

namespace wb {

// --help: from the same declarations as the parser.
std::string topo_help();

// Returns the exit code (docs/results.md, "Exit codes"): 0; 1 a DEGRADED link or an NCCL-log FAIL; 2 the
// picture could not be drawn; 3 bad usage or input (by the exception it throws).
int run_topo_command(CommandLine& args);

}  // namespace wb
