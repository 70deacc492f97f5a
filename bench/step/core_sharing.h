// How many ranks share each CPU core of the machines a run is on. The cost model has no CPU: it
// assumes a core per rank. Where ranks outnumber cores (the virtual cluster's nodes are namespaces
// of one machine), every algorithm round that waits for a new partner also waits for that rank's
// turn on a core, which a calibration run with a core per rank never saw (bench/MEASUREMENTS.md,
// session 30: 8 nodes on 2 cores ran 25% over a 2-node calibration's prediction).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace wb::step {

// This process's machine: the kernel's boot id (network namespaces of one machine share it), else
// the host name.
std::string machine_identity();

// The cores this process may run on (its affinity mask), at least 1.
int usable_cores();

// Each rank's (machine, usable cores): the most ranks per core on any machine (1 with a core per rank,
// 4 for 8 ranks on 2 cores). Below 1 where cores outnumber ranks.
double ranks_per_core(const std::vector<std::pair<std::string, int>>& ranks);

}  // namespace wb::step
