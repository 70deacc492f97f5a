// suites/ceilings.csv: the rate of one unit of each link class and generation (an NVLink link, a
// PCIe lane, an IB port, a Gb/s of Ethernet), its typical latency, the fraction a healthy link
// reaches, and where each number comes from.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wb {

struct CeilingEntry {
  std::string link_class;   // nvlink, pcie, ib, roce, eth, shm
  std::string generation;   // 4, gen5, ndr, any
  std::string unit;         // link, lane, port, gbit, node
  std::optional<double> rate_GBps_per_unit;
  std::optional<double> latency_us;
  std::optional<double> healthy_fraction;
  std::string source;
  long line = 0;
};

class CeilingsDb {
 public:
  // Throws InputError naming the file and line of a missing column or a bad number.
  static CeilingsDb read(const std::string& path);
  const CeilingEntry* find(const std::string& link_class, const std::string& generation) const;
  const std::string& path() const { return path_; }
  const std::vector<CeilingEntry>& entries() const { return entries_; }

 private:
  std::string path_;
  std::vector<CeilingEntry> entries_;
};


}  // namespace wb
