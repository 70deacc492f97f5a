#include "harness/link_class.h"

#include <filesystem>
#include <fstream>

namespace wb {
namespace {
std::string first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}
}  // namespace

std::string detect_network_link_class(const std::string& sysfs_root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path hcas = fs::path(sysfs_root) / "class" / "infiniband";
  bool roce = false;
  for (const auto& hca : fs::directory_iterator(hcas, ec)) {
    for (const auto& port : fs::directory_iterator(hca.path() / "ports", ec)) {
      // state reads like "4: ACTIVE"
      if (first_line(port.path() / "state").find("ACTIVE") == std::string::npos) continue;
      const std::string layer = first_line(port.path() / "link_layer");
      if (layer == "InfiniBand") return "ib";
      if (layer == "Ethernet") roce = true;
    }
  }
  return roce ? "roce" : "eth";
}

std::string pair_link_class(const std::string& host_a, const std::string& host_b,
                            const std::string& network_class) {
  return host_a == host_b ? "shm" : network_class;
}

}  // namespace wb
