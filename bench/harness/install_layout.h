// Where a wirebench binary finds its data (suites, ceilings, models, profiles, the reporter and
// runner, the virtual-cluster scripts): relative to its own location, so that an installed prefix
// (PREFIX/bin beside PREFIX/share/wirebench), a copy of it on a compute node and the build tree
// (BUILD/bin beside BUILD/share/wirebench, links into the source tree made at configure time) all
// work without a path compiled in.
//
// Overrides: WIREBENCH_DATA names the share/wirebench folder; WB_SUITES_DIR names the suites alone.
#pragma once

#include <string>

namespace wb {

// The folder holding this process's executable (from /proc/self/exe).
std::string executable_dir();

// $WIREBENCH_DATA, else executable_dir()/../share/wirebench. Throws InputError naming the folder
// and the override when it does not exist.
std::string data_dir();

// $WB_SUITES_DIR, else data_dir()/suites.
std::string suites_dir();

}  // namespace wb
