// Reader for the saved output of `nvidia-smi topo -p2p r|w|n|a|p` (read, write, NVLink, atomics,
// PCIe peer access): per GPU pair whether peer-to-peer works and, where not, nvidia-smi's reason
// (OK, CNS, GNS, TNS, NS, DR, U). Bad input is an InputError naming the line.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

namespace wb {

enum class P2pStatus {
  kOk,
  kChipsetNotSupported,   // CNS: the chipset (root complex, CPU interconnect) does not carry peer traffic
  kGpuNotSupported,       // GNS: the GPU product has peer access off (most GeForce cards)
  kTopologyNotSupported,  // TNS: the PCIe path between them does not allow it (ACS, IOMMU, switches)
  kNotSupported,          // NS
  kDisabledByRegkey,      // DR: the driver's registry key turns it off (an administrator's setting)
  kUnknown,               // U
};
const char* p2p_code(P2pStatus status);     // OK, CNS, GNS, TNS, NS, DR, U
std::string p2p_meaning(P2pStatus status);  // what it means and what follows for the pair's copies
// CNS, TNS and DR are the site's to change (BIOS ACS / IOMMU settings, the regkey); GNS and NS the
// product's; U nobody's.
bool p2p_fixable_by_site(P2pStatus status);

struct P2pMatrix {
  std::map<std::pair<int, int>, P2pStatus> pairs;  // (GPU a, GPU b), a != b, both orders
};

// `source` names the input in error messages ("p2p.txt:3: ...").
P2pMatrix parse_nvidia_smi_p2p(std::string_view text, const std::string& source);
P2pMatrix read_nvidia_smi_p2p(const std::string& path);

}  // namespace wb
