#include "topology/nvidia_smi_topo.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "harness/errors.h"
#include "topology/text_input.h"

namespace wb {
namespace {

bool has_number_suffix(std::string_view token, std::string_view prefix, int* number = nullptr) {
  if (!token.starts_with(prefix) || token.size() == prefix.size()) return false;
  int value = 0;
  const auto digits = token.substr(prefix.size());
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return false;
  if (number != nullptr) *number = value;
  return true;
}

// The header's device columns end where the affinity column names begin.
bool is_affinity_word(std::string_view token) { return token == "CPU" || token == "NUMA" || token == "GPU"; }

struct Header {
  std::size_t line = 0;  // index into lines
  std::vector<TopoDevice> devices;
};

Header find_header(const std::vector<std::string>& lines, const std::string& source) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto tokens = split_whitespace(lines[i]);
    if (std::find(tokens.begin(), tokens.end(), "GPU0") == tokens.end()) continue;
    Header header;
    header.line = i;
    int nic_position = 0;
    for (const auto& token : tokens) {
      if (is_affinity_word(token)) break;
      TopoDevice device;
      device.label = token;
      device.name = token;
      if (has_number_suffix(token, "GPU", &device.index)) {
        device.is_gpu = true;
      } else if (!has_number_suffix(token, "NIC", &device.index)) {
        device.index = nic_position;  // an HCA name printed as the column label (older drivers)
      }
      if (!device.is_gpu) ++nic_position;
      header.devices.push_back(device);
    }
    return header;
  }
  throw InputError(source, 0, "no header line naming GPU0: not `nvidia-smi topo -m` output");
}

TopoCell parse_cell(const std::string& token, const TopoDevice& row, const TopoDevice& column,
                    const std::string& source, long line) {
  TopoCell cell;
  if (token == "X") cell.kind = PathKind::kSelf;
  else if (has_number_suffix(token, "NV", &cell.nvlinks) && cell.nvlinks > 0) cell.kind = PathKind::kNvlink;
  else if (token == "PIX") cell.kind = PathKind::kPix;
  else if (token == "PXB") cell.kind = PathKind::kPxb;
  else if (token == "PHB") cell.kind = PathKind::kPhb;
  else if (token == "NODE") cell.kind = PathKind::kNode;
  else if (token == "SYS" || token == "SOC") cell.kind = PathKind::kSys;  // SOC: very old drivers
  else
    throw InputError(source, line, "unknown cell '" + token + "' in row " + row.label + ", column " + column.label +
                                       " (expected X, NV#, PIX, PXB, PHB, NODE, SYS or SOC)");
  return cell;
}

void read_legend(const std::vector<std::string>& lines, std::size_t from, std::vector<TopoDevice>& devices) {
  for (std::size_t i = from; i < lines.size(); ++i) {
    const auto tokens = split_whitespace(lines[i]);
    int index = 0;
    if (tokens.size() != 2 || tokens[0].back() != ':') continue;
    const std::string label = tokens[0].substr(0, tokens[0].size() - 1);
    if (!has_number_suffix(label, "NIC", &index)) continue;
    for (auto& device : devices)
      if (device.label == label) device.name = tokens[1];
  }
}

void check_consistency(const TopoMatrix& m, const std::string& source, const std::vector<long>& row_lines) {
  for (std::size_t a = 0; a < m.devices.size(); ++a) {
    for (std::size_t b = 0; b < m.devices.size(); ++b) {
      const TopoCell& cell = m.at(a, b);
      const std::string where = "row " + m.devices[a].label + ", column " + m.devices[b].label;
      if ((a == b) != (cell.kind == PathKind::kSelf))
        throw InputError(source, row_lines[a], where + ": X belongs on the diagonal and only there");
      if (cell.kind == PathKind::kNvlink && !(m.devices[a].is_gpu && m.devices[b].is_gpu))
        throw InputError(source, row_lines[a], where + ": NVLink between devices that are not both GPUs");
      const TopoCell& mirror = m.at(b, a);
      if (mirror.kind != cell.kind || mirror.nvlinks != cell.nvlinks)
        throw InputError(source, row_lines[a], where + " is " + cell.text() + " but row " + m.devices[b].label +
                                                   ", column " + m.devices[a].label + " is " + mirror.text());
    }
  }
}

}  // namespace

std::string_view to_string(PathKind kind) {
  switch (kind) {
    case PathKind::kSelf: return "X";
    case PathKind::kNvlink: return "NV";
    case PathKind::kPix: return "PIX";
    case PathKind::kPxb: return "PXB";
    case PathKind::kPhb: return "PHB";
    case PathKind::kNode: return "NODE";
    case PathKind::kSys: return "SYS";
  }
  return "SYS";
}

std::string TopoCell::text() const {
  return kind == PathKind::kNvlink ? "NV" + std::to_string(nvlinks) : std::string(to_string(kind));
}

bool TopoDevice::on_c2c() const {
  return is_gpu && !gpu_numa_id.empty() &&
         std::all_of(gpu_numa_id.begin(), gpu_numa_id.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::vector<std::size_t> TopoMatrix::gpu_indices() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (devices[i].is_gpu) out.push_back(i);
  return out;
}

std::vector<std::size_t> TopoMatrix::nic_indices() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (!devices[i].is_gpu) out.push_back(i);
  return out;
}

TopoMatrix parse_nvidia_smi_topo(std::string_view raw, const std::string& source) {
  if (raw.find_first_not_of(" \t\r\n") == std::string_view::npos) throw InputError(source, 0, "file is empty");
  require_text(raw, source);
  const std::vector<std::string> lines = split_lines(strip_ansi(raw));
  Header header = find_header(lines, source);
  TopoMatrix m;
  m.devices = header.devices;
  const std::size_t n = m.devices.size();
  std::vector<long> row_lines;

  std::size_t i = header.line + 1;
  for (std::size_t row = 0; row < n; ++row, ++i) {
    const long line_number = static_cast<long>(i) + 1;
    const auto tokens = i < lines.size() ? split_whitespace(lines[i]) : std::vector<std::string>{};
    if (tokens.empty() || tokens[0] == "Legend:")
      throw InputError(source, line_number, "matrix ends after " + std::to_string(row) + " rows, but the header names " +
                                                std::to_string(n) + " devices (truncated?)");
    TopoDevice& device = m.devices[row];
    if (tokens[0] != device.label)
      throw InputError(source, line_number, "expected the row of " + device.label + ", found '" + tokens[0] + "'");
    if (tokens.size() < n + 1)
      throw InputError(source, line_number, "row " + device.label + " has " + std::to_string(tokens.size() - 1) +
                                                " cells, but the header names " + std::to_string(n) + " devices");
    std::vector<TopoCell> cells;
    for (std::size_t c = 0; c < n; ++c)
      cells.push_back(parse_cell(tokens[c + 1], device, m.devices[c], source, line_number));
    // The rest are affinities, in header order; empty cells (tab output) have vanished already.
    std::string* affinity[] = {&device.cpu_affinity, &device.numa_affinity, &device.gpu_numa_id};
    for (std::size_t a = n + 1, k = 0; a < tokens.size() && k < 3; ++a, ++k) *affinity[k] = tokens[a];
    m.cells.push_back(std::move(cells));
    row_lines.push_back(line_number);
  }
  check_consistency(m, source, row_lines);
  read_legend(lines, i, m.devices);
  return m;
}

TopoMatrix read_nvidia_smi_topo(const std::string& path) { return parse_nvidia_smi_topo(read_text_file(path), path); }

}  // namespace wb
