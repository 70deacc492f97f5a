#include "topology/link_derivation.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <regex>

namespace wb {
namespace {

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

std::string gpu_label(int index) { return "gpu" + std::to_string(index); }

// The per-direction ceiling of a PCIe link as trained, or nullopt with the reason in `why`: its lanes'
// rate on the wire (after encoding) times the share of it TLPs of its payload size carry as data.
// The payload is the link's MaxPayload, or its MaxReadReq where smaller (a read's completions carry no
// more than was asked); unread (saved inputs, a user other than root), the database's default, said.
std::optional<double> pcie_ceiling(const PcieLinkState& link, const CeilingsDb& db, std::string& why,
                                   const CeilingEntry** entry) {
  if (!link.known()) {
    why = "PCIe generation and width unknown";
    return std::nullopt;
  }
  const auto generation = pcie_generation(*link.current_gts);
  *entry = generation ? db.find("pcie", "gen" + std::to_string(*generation)) : nullptr;
  if (*entry == nullptr || !(*entry)->rate_GBps_per_unit) {
    why = "no ceiling for PCIe at " + number_text(*link.current_gts) + " GT/s in " + db.path();
    return std::nullopt;
  }
  const CeilingEntry& row = **entry;
  const double wire = *row.rate_GBps_per_unit * *link.current_width;
  why = "PCIe Gen" + std::to_string(*generation) + " x" + std::to_string(*link.current_width) + " = " +
        std::to_string(*link.current_width) + " x " + number_text(*row.rate_GBps_per_unit) + " GB/s";
  if (!row.tlp_overhead_bytes) return wire;  // a database of line rates only
  std::optional<int> payload = link.max_payload_bytes;
  std::string said = "MaxPayload " + (payload ? std::to_string(*payload) : std::string("?")) + " B";
  if (payload && link.max_read_request_bytes && *link.max_read_request_bytes < *payload) {
    payload = link.max_read_request_bytes;
    said += ", MaxReadReq " + std::to_string(*payload) + " B";
  }
  if (!payload) {
    payload = static_cast<int>(row.max_payload_bytes.value_or(256));
    said = "MaxPayload " + std::to_string(*payload) + " B assumed (the link's own unread: saved input, or not root)";
  }
  const double share = pcie_payload_share(row, *payload);
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.1f%%", 100 * share);
  const std::string bytes = std::to_string(*payload);
  why += " on the wire, " + std::string(percent) + " of it data in TLPs of " + bytes + " B (" + said + ": " + bytes +
         " / (" + bytes + " + " + number_text(row.tlp_overhead_bytes.value_or(0)) + " TLP + " +
         number_text(row.dllp_bytes_per_tlp.value_or(0)) + " DLLP bytes))";
  return wire * share;
}

std::vector<std::string> pcie_degradation(const std::string& who, const PcieLinkState& link) {
  if (!link.below_max()) return {};
  auto gen = [](std::optional<double> gts) {
    const auto g = gts ? pcie_generation(*gts) : std::nullopt;
    return g ? "Gen" + std::to_string(*g) : std::string("?");
  };
  return {who + " PCIe trained at " + gen(link.current_gts) + " x" + std::to_string(link.current_width.value_or(0)) +
          ", capable of " + gen(link.capable_gts()) + " x" + std::to_string(link.capable_width().value_or(0))};
}

void apply_entry(DerivedLink& link, const CeilingEntry* entry) {
  if (entry == nullptr) return;
  link.healthy_fraction = entry->healthy_fraction;
  link.source = entry->source;
  link.generation = entry->generation;
}

struct PortCeiling {
  std::string link_class;
  std::optional<double> ceiling;
  std::string reason;
  const CeilingEntry* entry = nullptr;
  std::vector<std::string> degraded;
  std::vector<std::string> inactive;
};

PortCeiling port_ceiling(const NicPort& nic, const CeilingsDb& db) {
  PortCeiling out;
  const bool ethernet = nic.link_layer == "Ethernet";
  const bool infiniband = nic.link_layer == "InfiniBand";
  out.link_class = infiniband ? "ib" : (ethernet && !nic.rate_text.empty() ? "roce" : "eth");
  // IB ports say ACTIVE when up; Ethernet interfaces without an HCA give their operstate, "up".
  const bool hca_port = !nic.rate_text.empty();
  const std::string healthy_state = hca_port ? "ACTIVE" : "up";
  if (!nic.state.empty() && nic.state != healthy_state)
    out.inactive.push_back(nic.name + (hca_port ? " port " + std::to_string(nic.port) : std::string()) + " is " +
                           nic.state + ", not " + healthy_state);
  const auto rate = parse_port_rate(nic.rate_text);
  if (infiniband && rate && !rate->generation.empty()) {
    out.entry = db.find("ib", rate->generation);
    if (out.entry != nullptr && out.entry->rate_GBps_per_unit) {
      // A port runs 4 lanes; a narrower one gets its share of the generation's port rate.
      const int width = rate->width > 0 ? rate->width : 4;
      out.ceiling = *out.entry->rate_GBps_per_unit * width / 4.0;
      out.reason = "IB " + nic.rate_text + ": " + (width == 4 ? "" : std::to_string(width) + "/4 x ") +
                   number_text(*out.entry->rate_GBps_per_unit) + " GB/s per " + out.entry->unit;
    }
    if (rate->width > 0 && rate->width < 4)
      out.degraded.push_back(nic.name + " port runs " + std::to_string(rate->width) + "X, not 4X (" + nic.rate_text + ")");
    return out;
  }
  const std::optional<double> gbps = rate ? std::optional(rate->gbps) : nic.rate_gbps;
  out.entry = db.find(out.link_class, "any");
  if (gbps && out.entry != nullptr && out.entry->rate_GBps_per_unit) {
    out.ceiling = *gbps * *out.entry->rate_GBps_per_unit;
    out.reason = out.link_class + " " + number_text(*gbps) + " Gb/s x " + number_text(*out.entry->rate_GBps_per_unit) +
                 " GB/s per Gb/s";
  } else {
    out.reason = nic.name + ": port rate unknown";
  }
  return out;
}

}  // namespace

bool on_c2c(const GpuDevice& gpu) {
  if (gpu.c2c_host) return true;
  const std::string name = lower(gpu.name);
  for (const char* superchip : {"gh200", "gb200", "gb300"})
    if (name.find(superchip) != std::string::npos) return true;
  return false;
}

namespace {

const GpuDevice* gpu_by_index(const NodeTopology& node, int index) {
  for (const auto& g : node.gpus)
    if (g.index == index) return &g;
  return nullptr;
}

// The NVLink bundle width most GPU pairs of a saved matrix have (an NVSwitch box: every pair the
// same), where one width holds more than half of at least three NVLink pairs; nullopt otherwise (a
// hybrid cube mesh mixes widths on purpose). A pair below it has links down.
std::optional<int> nvlink_norm(const NodeTopology& node) {
  if (!node.matrix) return std::nullopt;
  std::map<int, int> widths;
  int pairs = 0;
  const auto gpus = node.matrix->gpu_indices();
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      const TopoCell cell = node.matrix->at(gpus[i], gpus[j]);
      if (cell.kind != PathKind::kNvlink || cell.nvlinks <= 0) continue;
      ++widths[cell.nvlinks];
      ++pairs;
    }
  if (pairs < 3) return std::nullopt;
  const auto most = std::max_element(widths.begin(), widths.end(),
                                     [](const auto& x, const auto& y) { return x.second < y.second; });
  if (2 * most->second <= pairs) return std::nullopt;
  return most->first;
}

DerivedLink nvlink_pair(const GpuDevice& a, const GpuDevice& b, int links, std::optional<int> possible,
                        std::optional<int> norm, const CeilingsDb& db, const DerivationOptions& options) {
  DerivedLink link{gpu_label(a.index), gpu_label(b.index), "nvlink", std::nullopt, "", "NV" + std::to_string(links), {}, "", {}, {}};
  // The GPU's own name first (live discovery), then the model named for saved text, then the
  // generation given, then a guess from the box's usual bundle width (a pair with links down
  // would otherwise read as an older GPU: NV12 of an H100 is not an A100).
  std::optional<std::string> generation = nvlink_generation_of(a.name);
  std::string assumed;
  if (!generation && options.gpu_model) {
    generation = nvlink_generation_of(*options.gpu_model);
    if (generation) assumed = ", from the GPU model " + *options.gpu_model;
  }
  if (!generation) generation = options.nvlink_generation;
  if (!generation) {
    // Saved text names no GPU model: infer from the bundle width where it is typical.
    // NV18 is H100/H200 (NVLink 4) or B200 (NVLink 5): say so, --nvlink-generation settles it.
    // Beside a Grace CPU (NVLink-C2C) NV18 is GB200's NVLink 5 (GH200 NVL32 has NVLink 4: say 4).
    const int width = norm.value_or(links);
    const std::string from = norm && *norm != links ? " (this box's usual NV" + std::to_string(width) + ")" : "";
    if (width == 18 && (on_c2c(a) || on_c2c(b)))
      generation = "5", assumed = ", assumed: NV18" + from + " beside a Grace CPU (NVLink-C2C) taken as GB200; GH200: --nvlink-generation 4";
    else if (width == 18) generation = "4", assumed = ", assumed: GPU model unknown, NV18" + from + " taken as H100/H200";
    else if (width == 12) generation = "3", assumed = ", assumed from NV12" + from + ": A100";
    else if (width <= 6) generation = "2", assumed = ", assumed from NV" + std::to_string(width) + from + ": V100";
  }
  const CeilingEntry* entry = generation ? db.find("nvlink", *generation) : nullptr;
  if (entry != nullptr && entry->rate_GBps_per_unit) {
    link.ceiling_GBps = links * *entry->rate_GBps_per_unit;
    link.reason = "NV" + std::to_string(links) + " x " + number_text(*entry->rate_GBps_per_unit) + " GB/s (NVLink " +
                  *generation + assumed + ")";
    apply_entry(link, entry);
  } else {
    link.reason = "NV" + std::to_string(links) + ": NVLink generation unknown (name the GPU model)";
  }
  if (possible && *possible > links)
    link.degraded.push_back(std::to_string(*possible - links) + " of " + std::to_string(*possible) + " NVLinks down");
  else if (!possible && norm && *norm > links)
    link.degraded.push_back("NV" + std::to_string(links) + " where this box's other GPU pairs have NV" +
                            std::to_string(*norm) + ": " + std::to_string(*norm - links) + " of " +
                            std::to_string(*norm) + " NVLinks down");
  for (const GpuDevice* gpu : {&a, &b})
    if (gpu->nvlinks_up && gpu->nvlinks_total && *gpu->nvlinks_up < *gpu->nvlinks_total)
      link.degraded.push_back(gpu_label(gpu->index) + " has " + std::to_string(*gpu->nvlinks_total - *gpu->nvlinks_up) +
                              " of " + std::to_string(*gpu->nvlinks_total) + " NVLinks inactive");
  return link;
}

}  // namespace

std::optional<std::string> nvlink_generation_of(const std::string& gpu_name) {
  const std::string name = lower(gpu_name);
  if (name.empty()) return std::nullopt;
  for (const char* model : {"b200", "b100", "gb200", "b300", "gb300"})
    if (name.find(model) != std::string::npos) return "5";
  for (const char* model : {"h100", "h200", "h800", "gh200", "h20"})
    if (name.find(model) != std::string::npos) return "4";
  for (const char* model : {"a100", "a800"})
    if (name.find(model) != std::string::npos) return "3";
  if (name.find("v100") != std::string::npos) return "2";
  for (const char* model : {"3090", "a6000", "a40"})
    if (name.find(model) != std::string::npos) return "ga102";
  return std::nullopt;
}

std::optional<PortRate> parse_port_rate(const std::string& text) {
  static const std::regex rate(R"(^\s*([0-9.]+)\s*Gb/sec(?:\s*\((\d+)X\s*([A-Za-z]+)?\))?)");
  std::smatch m;
  if (!std::regex_search(text, m, rate)) return std::nullopt;
  PortRate out;
  out.gbps = std::stod(m[1]);
  if (m[2].matched) out.width = std::stoi(m[2]);
  if (m[3].matched) out.generation = lower(m[3]);
  return out;
}

// The GPU in every pair below the box's NVLink norm (two pairs or more): its links, not its peers'.
void name_the_gpu_below_the_norm(std::vector<DerivedLink>& links, std::size_t first) {
  std::map<std::string, int> in_pairs;
  int below = 0;
  for (std::size_t i = first; i < links.size(); ++i) {
    const DerivedLink& l = links[i];
    if (l.link_class != "nvlink" || l.degraded.empty() || l.degraded.front().find("where this box's") == std::string::npos)
      continue;
    ++below;
    ++in_pairs[l.a];
    ++in_pairs[l.b];
  }
  if (below < 2) return;
  for (const auto& [gpu, count] : in_pairs) {
    if (count != below) continue;
    for (std::size_t i = first; i < links.size(); ++i)
      if ((links[i].a == gpu || links[i].b == gpu) && links[i].link_class == "nvlink" && !links[i].degraded.empty())
        links[i].degraded.front() += "; " + gpu + " is in every such pair: its NVLinks (or its NVSwitch ports) are at fault";
  }
}

std::vector<DerivedLink> derive_links(const NodeTopology& node, const CeilingsDb& db, const DerivationOptions& options) {
  std::vector<DerivedLink> links;
  const std::optional<int> norm = nvlink_norm(node);

  // GPU pairs.
  for (std::size_t i = 0; i < node.gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < node.gpus.size(); ++j) {
      const GpuDevice& a = node.gpus[i];
      const GpuDevice& b = node.gpus[j];
      std::optional<TopoCell> cell;
      if (node.matrix) {
        std::optional<std::size_t> ma, mb;
        for (std::size_t k : node.matrix->gpu_indices()) {
          if (node.matrix->devices[k].index == a.index) ma = k;
          if (node.matrix->devices[k].index == b.index) mb = k;
        }
        if (ma && mb) cell = node.matrix->at(*ma, *mb);
      }
      int nvlinks = cell && cell->kind == PathKind::kNvlink ? cell->nvlinks : 0;
      std::optional<int> possible;
      for (const auto& bundle : node.nvlinks)
        if ((bundle.gpu_a == a.index && bundle.gpu_b == b.index) || (bundle.gpu_a == b.index && bundle.gpu_b == a.index)) {
          nvlinks = bundle.links;
          possible = bundle.links_possible;
        }
      // nvidia-smi topo -p2p: where peer access does not work, copies go through host memory
      // whatever links the pair has.
      std::optional<P2pStatus> p2p;
      if (node.p2p)
        for (const auto& key : {std::pair{a.index, b.index}, std::pair{b.index, a.index}})
          if (auto it = node.p2p->pairs.find(key); it != node.p2p->pairs.end() && it->second != P2pStatus::kOk) p2p = it->second;
      if (nvlinks > 0 && !p2p) {
        links.push_back(nvlink_pair(a, b, nvlinks, possible, norm, db, options));
        continue;
      }
      DerivedLink link{gpu_label(a.index), gpu_label(b.index), "pcie", std::nullopt, "", cell ? cell->text() : "", {}, "", {}, {}};
      if (p2p) {
        const std::string what = "no peer access (" + p2p_meaning(*p2p) + ")" +
                                 (nvlinks > 0 ? ": the NV" + std::to_string(nvlinks) + " bundle goes unused" : "");
        if (p2p_fixable_by_site(*p2p) || nvlinks > 0) link.degraded.push_back(what);
      }
      std::string why_a, why_b;
      const CeilingEntry* entry_a = nullptr;
      const CeilingEntry* entry_b = nullptr;
      const auto ca = pcie_ceiling(a.pcie, db, why_a, &entry_a);
      const auto cb = pcie_ceiling(b.pcie, db, why_b, &entry_b);
      if (ca && cb) {
        link.ceiling_GBps = std::min(*ca, *cb);
        link.reason = "slower of the two GPUs' links: " + (*ca <= *cb ? why_a : why_b);
        apply_entry(link, *ca <= *cb ? entry_a : entry_b);
      } else {
        link.reason = "peer traffic over PCIe" + (cell ? " (" + cell->text() + ")" : std::string()) + "; " +
                      (ca ? why_b : why_a);
      }
      if (p2p) link.reason = std::string("through host memory, ") + p2p_code(*p2p) + ": " + link.reason;
      links.push_back(link);
    }
  }
  name_the_gpu_below_the_norm(links, 0);

  // A GPU's copy inside its own memory reads and writes every byte it copies: its ceiling is half the
  // memory bandwidth of its model (suites/gpu-memory.csv), by its own name, else the model named.
  if (options.gpu_memory != nullptr) {
    const CeilingEntry* copy = db.find("device", "any");
    for (const auto& gpu : node.gpus) {
      const GpuMemoryEntry* model = options.gpu_memory->find(gpu.name);
      std::string named;
      if (model == nullptr && gpu.name.empty() && options.gpu_model) {
        model = options.gpu_memory->find(*options.gpu_model);
        named = ", the GPU model given";
      }
      if (model == nullptr && gpu.name.empty()) continue;  // saved text naming no model: nothing known
      DerivedLink link{gpu_label(gpu.index), gpu_label(gpu.index), "device", std::nullopt, "", "", {}, "", {}, {}};
      if (model == nullptr) {
        link.reason = "a copy inside the GPU's memory: the model '" + gpu.name + "' is not in " + options.gpu_memory->path();
        links.push_back(link);
        continue;
      }
      link.ceiling_GBps = model->memory_GBps / 2;
      link.reason = model->model + named + ": " + number_text(model->memory_GBps) +
                    " GB/s of memory, a copy reads and writes each byte: " + number_text(model->memory_GBps / 2) +
                    " GB/s copied";
      apply_entry(link, copy);
      link.source = model->source + (copy != nullptr ? "; " + copy->source : std::string());
      links.push_back(link);
    }
  }

  // GPU to host: NVLink-C2C on a Grace superchip, else its PCIe link.
  for (const auto& gpu : node.gpus) {
    if (on_c2c(gpu)) {
      DerivedLink link{gpu_label(gpu.index), "host", "c2c", std::nullopt, "", "", {}, "", {}, {}};
      const CeilingEntry* entry = db.find("c2c", "any");
      if (entry != nullptr && entry->rate_GBps_per_unit) {
        link.ceiling_GBps = *entry->rate_GBps_per_unit;
        link.reason = "NVLink-C2C to the Grace CPU: " + number_text(*entry->rate_GBps_per_unit) + " GB/s per direction";
        apply_entry(link, entry);
      } else {
        link.reason = "NVLink-C2C to the Grace CPU: rate unknown (no c2c row in the ceilings)";
      }
      links.push_back(link);
      continue;
    }
    DerivedLink link{gpu_label(gpu.index), "host", "pcie", std::nullopt, "", "", {}, "", {}, {}};
    const CeilingEntry* entry = nullptr;
    link.ceiling_GBps = pcie_ceiling(gpu.pcie, db, link.reason, &entry);
    apply_entry(link, entry);
    link.degraded = pcie_degradation(gpu_label(gpu.index), gpu.pcie);
    links.push_back(link);
  }

  // GPU to NIC: the matrix distance; the ceiling is the slowest of GPU PCIe, NIC PCIe and port.
  if (node.matrix) {
    for (std::size_t g : node.matrix->gpu_indices()) {
      const GpuDevice* gpu = gpu_by_index(node, node.matrix->devices[g].index);
      for (std::size_t n : node.matrix->nic_indices()) {
        const std::string& nic_name = node.matrix->devices[n].name;
        const NicPort* nic = nullptr;
        for (const auto& candidate : node.nics)
          if (candidate.name == nic_name) nic = &candidate;
        DerivedLink link{gpu_label(node.matrix->devices[g].index), nic_name, "pcie", std::nullopt, "",
                         node.matrix->at(g, n).text(), {}, "", {}, {}};
        std::vector<std::pair<double, std::string>> limits;
        std::string why;
        const CeilingEntry* entry = nullptr;
        if (gpu != nullptr)
          if (auto c = pcie_ceiling(gpu->pcie, db, why, &entry)) limits.emplace_back(*c, "GPU " + why);
        if (nic != nullptr) {
          if (auto c = pcie_ceiling(nic->pcie, db, why, &entry)) limits.emplace_back(*c, "NIC " + why);
          const PortCeiling port = port_ceiling(*nic, db);
          if (port.ceiling) limits.emplace_back(*port.ceiling, "port " + port.reason);
        }
        if (!limits.empty()) {
          const auto slowest = *std::min_element(limits.begin(), limits.end());
          link.ceiling_GBps = slowest.first;
          link.reason = node.matrix->at(g, n).text() + ", limited by " + slowest.second;
        } else {
          link.reason = node.matrix->at(g, n).text() + " path; PCIe and port rates unknown";
        }
        links.push_back(link);
      }
    }
  }

  // Each NIC port to the network.
  for (const auto& nic : node.nics) {
    if (nic.link_layer.empty() && nic.rate_text.empty() && !nic.rate_gbps) continue;  // known by name only
    const PortCeiling port = port_ceiling(nic, db);
    DerivedLink link{nic.name, "network", port.link_class, port.ceiling, port.reason, "", {}, "", port.degraded,
                     port.inactive};
    apply_entry(link, port.entry);
    for (const auto& d : pcie_degradation(nic.name, nic.pcie)) link.degraded.push_back(d);
    links.push_back(link);
  }
  return links;
}

}  // namespace wb
