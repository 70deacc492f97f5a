#include "topology/topology_report.h"

#include <cstdio>
#include <sstream>

#include "schema/versions.h"

namespace wb {
namespace {

using nlohmann::json;

json optional_json(const auto& value) { return value ? json(*value) : json(nullptr); }

json pcie_json(const PcieLinkState& link) {
  return {{"current_gts", optional_json(link.current_gts)}, {"max_gts", optional_json(link.max_gts)},
          {"current_width", optional_json(link.current_width)}, {"max_width", optional_json(link.max_width)},
          {"port_max_gts", optional_json(link.port_max_gts)}, {"port_max_width", optional_json(link.port_max_width)},
          {"read_under_load", link.read_under_load}, {"below_max", link.below_max()},
          {"max_payload_bytes", optional_json(link.max_payload_bytes)},
          {"max_read_request_bytes", optional_json(link.max_read_request_bytes)}};
}

json node_json(const NodeReport& report) {
  const NodeTopology& node = report.node;
  json gpus = json::array(), nics = json::array(), numa = json::array(), pcie = json::array(), links = json::array();
  for (const auto& g : node.gpus)
    gpus.push_back({{"index", g.index}, {"name", g.name}, {"uuid", g.uuid}, {"pci_bus_id", g.pci_bus_id},
                    {"numa_node", optional_json(g.numa_node)}, {"compute_capability", g.compute_capability},
                    {"memory_bytes", g.memory_bytes}, {"pcie", pcie_json(g.pcie)},
                    {"nvlinks_up", optional_json(g.nvlinks_up)}, {"nvlinks_total", optional_json(g.nvlinks_total)}});
  for (const auto& n : node.nics) {
    json nic = {{"name", n.name}, {"port", n.port}, {"link_layer", n.link_layer}, {"state", n.state},
                {"rate", n.rate_text}, {"rate_gbps", optional_json(n.rate_gbps)}, {"pci_bus_id", n.pci_bus_id},
                {"numa_node", optional_json(n.numa_node)}, {"pcie", pcie_json(n.pcie)}};
    // The distance of this NIC to each GPU, as nvidia-smi printed it.
    if (node.matrix) {
      json distance = json::object();
      for (std::size_t c : node.matrix->nic_indices())
        if (node.matrix->devices[c].name == n.name)
          for (std::size_t g : node.matrix->gpu_indices())
            distance["gpu" + std::to_string(node.matrix->devices[g].index)] = node.matrix->at(g, c).text();
      nic["distance_to_gpus"] = distance;
    }
    nics.push_back(nic);
  }
  for (const auto& n : node.numa_nodes) numa.push_back({{"id", n.id}, {"cpus", n.cpus}, {"memory_bytes", n.memory_bytes}});
  for (const auto& d : node.pcie_devices)
    pcie.push_back({{"bdf", d.bdf}, {"parent", d.parent_bdf}, {"class", d.class_name},
                    {"numa_node", optional_json(d.numa_node)}, {"link", pcie_json(d.link)}});
  for (const auto& l : report.links)
    links.push_back({{"a", l.a}, {"b", l.b}, {"class", l.link_class}, {"ceiling_GBps", optional_json(l.ceiling_GBps)},
                     {"reason", l.reason}, {"distance", l.distance},
                     {"healthy_fraction", optional_json(l.healthy_fraction)}, {"source", l.source},
                     {"degraded", l.degraded}, {"inactive", l.inactive}});
  json peer = json::array();
  for (const auto& p : node.peer_access)
    peer.push_back({{"a", p.gpu_a}, {"b", p.gpu_b}, {"can_access", p.can_access},
                    {"performance_rank", p.performance_rank}, {"native_atomics", p.native_atomics}});
  json expectations = json::array();
  for (const auto& e : report.collectives)
    expectations.push_back({{"op", e.op}, {"nodes", e.nodes}, {"gpus_per_node", e.gpus_per_node},
                            {"algorithm", e.algorithm}, {"nccl_choice", e.nccl_choice}, {"busbw_GBps", e.busbw_GBps},
                            {"healthy_fraction", e.healthy_fraction}, {"reason", e.reason}, {"source", e.source}});
  return {{"hostname", node.hostname}, {"sources", node.sources}, {"gpus", gpus}, {"nics", nics},
          {"numa_nodes", numa}, {"pcie_devices", pcie}, {"peer_access", peer}, {"links", links},
          {"nccl_expectations", expectations}, {"nccl_expectations_note", report.collectives_note}};
}

std::string ceiling_text(const std::optional<double>& ceiling) {
  if (!ceiling) return "?";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", *ceiling);
  return text;
}

}  // namespace

nlohmann::json topology_json(const std::vector<NodeReport>& nodes, const CeilingsDb& ceilings) {
  json doc = {{"schema_version", kTopologySchemaVersion}, {"nodes", json::array()}, {"typical_latency_us", json::array()}};
  for (const auto& node : nodes) doc["nodes"].push_back(node_json(node));
  for (const auto& e : ceilings.entries())
    if (e.latency_us)
      doc["typical_latency_us"].push_back({{"link_class", e.link_class}, {"generation", e.generation},
                                           {"latency_us", *e.latency_us}, {"source", e.source}});
  return doc;
}

std::string topology_table(const std::vector<NodeReport>& nodes) {
  std::ostringstream out;
  for (const auto& report : nodes) {
    const NodeTopology& node = report.node;
    out << "node " << node.hostname << "  (from: ";
    for (std::size_t i = 0; i < node.sources.size(); ++i) out << (i ? ", " : "") << node.sources[i];
    out << ")\n";
    out << "  NUMA nodes: " << node.numa_nodes.size();
    for (const auto& n : node.numa_nodes) out << "  [" << n.id << ": cpus " << n.cpus << "]";
    out << "\n  GPUs: " << node.gpus.size() << (node.gpus.empty() ? "  (none visible)" : "") << "\n";
    for (const auto& g : node.gpus) {
      out << "    gpu" << g.index << "  " << (g.name.empty() ? "(model unknown)" : g.name);
      if (!g.pci_bus_id.empty()) out << "  " << g.pci_bus_id;
      if (g.numa_node) out << "  numa " << *g.numa_node;
      out << "\n";
    }
    out << "  NICs: " << node.nics.size() << (node.nics.empty() ? "  (none on a PCI device)" : "") << "\n";
    for (const auto& n : node.nics) {
      out << "    " << n.name;
      if (!n.link_layer.empty()) out << "  " << n.link_layer;
      if (!n.state.empty()) out << "  " << n.state;
      if (!n.rate_text.empty()) out << "  " << n.rate_text;
      else if (n.rate_gbps) out << "  " << *n.rate_gbps << " Gb/s";
      if (!n.pci_bus_id.empty()) out << "  " << n.pci_bus_id;
      out << "\n";
    }
    std::size_t bridges = 0;
    for (const auto& d : node.pcie_devices) bridges += d.class_name == "bridge";
    out << "  PCIe devices: " << node.pcie_devices.size() << " (" << bridges << " bridges)\n";
    std::size_t degraded = 0;
    for (const auto& l : report.links) degraded += !l.degraded.empty();
    // What is wrong first: a saved matrix of 100 links hides a down bundle in the middle.
    out << "  links: " << report.links.size()
        << (degraded ? ", " + std::to_string(degraded) + " DEGRADED (below)" : std::string()) << "\n";
    char header[160];
    std::snprintf(header, sizeof header, "    %-10s %-10s %-7s %-6s %10s  %s\n", "a", "b", "class", "dist", "GB/s", "reason");
    out << header;
    for (const auto& l : report.links) {
      char row[160];
      std::snprintf(row, sizeof row, "    %-10s %-10s %-7s %-6s %10s  ", l.a.c_str(), l.b.c_str(), l.link_class.c_str(),
                    l.distance.c_str(), ceiling_text(l.ceiling_GBps).c_str());
      out << row << l.reason << "\n";
      for (const auto& d : l.degraded) out << "      DEGRADED: " << d << "\n";
      for (const auto& d : l.inactive) out << "      INACTIVE: " << d << "\n";
    }
    if (!report.collectives.empty() || !report.collectives_note.empty())
      out << "  NCCL all_reduce busbw expected (large sizes, at line rate):"
          << (report.collectives_note.empty() ? "" : " " + report.collectives_note) << "\n";
    for (const auto& e : report.collectives) {
      char row[160];
      std::snprintf(row, sizeof row, "    %-3s node(s) x %d GPUs  %-9s %-13s %8.4g GB/s  healthy from %.0f%%  ",
                    e.nodes.c_str(), e.gpus_per_node, e.algorithm.c_str(), e.nccl_choice ? "(NCCL's pick)" : "",
                    e.busbw_GBps, 100 * e.healthy_fraction);
      out << row << e.reason << "\n";
    }
  }
  return out.str();
}

}  // namespace wb
