// `wirebench topo`: this node's wiring (or saved nvidia-smi / NCCL text), every path's link class
// and ceiling, as a table, JSON (--json) or a picture (--png FILE).
#pragma once

#include "harness/command_line.h"

namespace wb {

inline constexpr const char* kTopoUsage =
    "usage: wirebench topo [--json] [--png FILE] [--nvidia-smi-topo FILE] [--nccl-log FILE]\n"
    "                      [--hostname NAME] [--nvlink-generation 2|3|4|5|ga102] [--ceilings FILE]\n"
    "  (no file)              discover this machine: sysfs, hwloc, CUDA and nvidia-smi when present\n"
    "  --nvidia-smi-topo FILE read saved `nvidia-smi topo -m` output instead of the live machine\n"
    "  --nccl-log FILE        read an NCCL_DEBUG=INFO log: transport per channel, misconfigurations\n"
    "  --hostname NAME        the node's name for saved text (default: the file's name)\n"
    "  --nvlink-generation G  NVLink generation when the GPU model is unknown (saved text)\n"
    "  --ceilings FILE        the ceilings database (default: suites/ceilings.csv)\n"
    "  --json                 print JSON instead of the table\n"
    "  --png FILE             also draw the topology with matplotlib\n";

// Returns the exit code: 0, 2 (the picture could not be drawn), 3 (bad usage or input).
int run_topo_command(CommandLine& args);

}  // namespace wb
