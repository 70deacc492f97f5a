#include "step/core_sharing.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <thread>

namespace wb::step {

std::string machine_identity() {
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (boot && std::getline(boot, id) && !id.empty()) return id;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return std::max(1u, std::thread::hardware_concurrency());
}

double ranks_per_core(const std::vector<std::pair<std::string, int>>& ranks) {
  // A machine's cores: the most any of its ranks may use (ranks pinned to one core each still share
  // the machine's; the union of their masks is not known here).
  std::map<std::string, std::pair<int, int>> machines;  // ranks, cores
  for (const auto& [machine, cores] : ranks) {
    auto& [count, most] = machines[machine];
    ++count;
    most = std::max(most, std::max(cores, 1));
  }
  double worst = 0;
  for (const auto& [machine, load] : machines)
    worst = std::max(worst, static_cast<double>(load.first) / load.second);
  return worst;
}

}  // namespace wb::step
