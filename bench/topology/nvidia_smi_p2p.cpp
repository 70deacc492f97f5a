#include "topology/nvidia_smi_p2p.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "harness/errors.h"
#include "topology/text_input.h"

namespace wb {
namespace {

bool gpu_label(std::string_view token, int& index) {
  if (!token.starts_with("GPU") || token.size() == 3) return false;
  const auto digits = token.substr(3);
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  return ec == std::errc() && ptr == digits.data() + digits.size();
}

constexpr struct {
  const char* code;
  P2pStatus status;
} kCodes[] = {{"OK", P2pStatus::kOk},
              {"CNS", P2pStatus::kChipsetNotSupported},
              {"GNS", P2pStatus::kGpuNotSupported},
              {"TNS", P2pStatus::kTopologyNotSupported},
              {"NS", P2pStatus::kNotSupported},
              {"DR", P2pStatus::kDisabledByRegkey},
              {"U", P2pStatus::kUnknown}};

}  // namespace

const char* p2p_code(P2pStatus status) {
  for (const auto& c : kCodes)
    if (c.status == status) return c.code;
  return "U";
}

std::string p2p_meaning(P2pStatus status) {
  const std::string staged = ": peer copies go through host memory";
  switch (status) {
    case P2pStatus::kOk: return "OK: peer-to-peer works";
    case P2pStatus::kChipsetNotSupported:
      return "CNS, chipset not supported" + staged + " (the CPU's root complex or socket link does not carry peer traffic)";
    case P2pStatus::kGpuNotSupported: return "GNS, GPU not supported" + staged + " (the product has peer access off)";
    case P2pStatus::kTopologyNotSupported:
      return "TNS, topology not supported" + staged + " (the PCIe path does not allow it: ACS or the IOMMU redirecting "
                                                      "peer traffic, check the BIOS and kernel settings)";
    case P2pStatus::kNotSupported: return "NS, not supported" + staged;
    case P2pStatus::kDisabledByRegkey:
      return "DR, disabled by the driver's registry key" + staged + " (an administrator's setting: NVLink unused)";
    case P2pStatus::kUnknown: return "U, unknown: nvidia-smi could not tell";
  }
  return "";
}

bool p2p_fixable_by_site(P2pStatus status) {
  return status == P2pStatus::kChipsetNotSupported || status == P2pStatus::kTopologyNotSupported ||
         status == P2pStatus::kDisabledByRegkey;
}

P2pMatrix parse_nvidia_smi_p2p(std::string_view raw, const std::string& source) {
  if (raw.find_first_not_of(" \t\r\n") == std::string_view::npos) throw InputError(source, 0, "file is empty");
  require_text(raw, source);
  const std::vector<std::string> lines = split_lines(strip_ansi(raw));
  std::size_t header = lines.size();
  std::vector<int> columns;
  for (std::size_t i = 0; i < lines.size() && header == lines.size(); ++i) {
    const auto tokens = split_whitespace(lines[i]);
    if (tokens.empty() || tokens[0] != "GPU0") continue;
    for (const auto& token : tokens) {
      int index = 0;
      if (!gpu_label(token, index)) throw InputError(source, static_cast<long>(i) + 1, "header cell '" + token + "' is not GPU<n>");
      columns.push_back(index);
    }
    header = i;
  }
  if (header == lines.size())
    throw InputError(source, 0, "no header line starting with GPU0: not `nvidia-smi topo -p2p` output");
  P2pMatrix m;
  for (std::size_t row = 0; row < columns.size(); ++row) {
    const std::size_t i = header + 1 + row;
    const long line = static_cast<long>(i) + 1;
    const auto tokens = i < lines.size() ? split_whitespace(lines[i]) : std::vector<std::string>{};
    int index = -1;
    if (tokens.empty() || !gpu_label(tokens[0], index) || index != columns[row])
      throw InputError(source, line, "expected the row of GPU" + std::to_string(columns[row]) + " (" +
                                         std::to_string(columns.size()) + " GPUs in the header; truncated?)");
    if (tokens.size() != columns.size() + 1)
      throw InputError(source, line, "row GPU" + std::to_string(index) + " has " + std::to_string(tokens.size() - 1) +
                                         " cells, but the header names " + std::to_string(columns.size()) + " GPUs");
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string& cell = tokens[c + 1];
      if (c == row) {
        if (cell != "X") throw InputError(source, line, "GPU" + std::to_string(index) + " against itself is '" + cell + "', not X");
        continue;
      }
      const auto known = std::find_if(std::begin(kCodes), std::end(kCodes), [&](const auto& k) { return cell == k.code; });
      if (known == std::end(kCodes))
        throw InputError(source, line, "unknown cell '" + cell + "' in row GPU" + std::to_string(index) + ", column GPU" +
                                           std::to_string(columns[c]) + " (expected OK, CNS, GNS, TNS, NS, DR or U)");
      m.pairs[{index, columns[c]}] = known->status;
    }
  }
  return m;
}

P2pMatrix read_nvidia_smi_p2p(const std::string& path) { return parse_nvidia_smi_p2p(read_text_file(path), path); }

}  // namespace wb
