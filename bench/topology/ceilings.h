// suites/ceilings.csv: the rate of one unit of each link class and generation (an NVLink link, a
// PCIe lane, an IB port, a Gb/s of Ethernet), its typical latency, the fraction a healthy link
// reaches, and where each number comes from; for PCIe also what each TLP spends beside its payload,
// so that a link's ceiling is what it carries, not its line rate. suites/gpu-memory.csv: each GPU
// model's memory bandwidth and host link, from the vendor's datasheet.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wb {

struct CeilingEntry {
  std::string link_class;   // nvlink, pcie, ib, roce, eth, shm, device
  std::string generation;   // 4, gen5, ndr, any
  std::string unit;         // link, lane, port, gbit, node, copy
  std::optional<double> rate_GBps_per_unit;
  std::optional<double> latency_us;
  std::optional<double> healthy_fraction;
  std::string source;
  long line = 0;
  // PCIe: bytes each TLP spends beside its payload (header, sequence number, LCRC, framing), the
  // DLLP bytes that go with each TLP (ACK, flow control), and the MaxPayload taken where the link's
  // own is unread (saved inputs). Unset for other classes.
  std::optional<double> tlp_overhead_bytes, dllp_bytes_per_tlp, max_payload_bytes;
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

// The share of a PCIe link's line rate that carries data with TLPs of `payload` bytes:
// payload / (payload + TLP overhead + DLLP bytes); 1 for a row that states no overheads.
double pcie_payload_share(const CeilingEntry& pcie, double payload);

struct GpuMemoryEntry {
  std::string model;                // H100 SXM
  std::vector<std::string> names;   // alternatives, each words a name must all hold ("h100 sxm")
  double memory_GBps = 0;           // the datasheet's memory bandwidth (reads and writes together)
  std::string host_link;            // gen5x16, c2c
  std::string source;
  long line = 0;
};

class GpuMemoryDb {
 public:
  // Throws InputError naming the file and line of a missing column or a bad number.
  static GpuMemoryDb read(const std::string& path);
  // The first row one of whose alternatives' words all appear in the name (any case; '-' and '_'
  // read as spaces): "NVIDIA H100 80GB HBM3" is H100 SXM, "NVIDIA A100-SXM4-40GB" A100 40GB.
  const GpuMemoryEntry* find(const std::string& gpu_name) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<GpuMemoryEntry> entries_;
};

}  // namespace wb
