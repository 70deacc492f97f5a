// The two faces of `wirebench topo`: a JSON document (an object with `nodes`, each with
// `hostname`, `gpus`, `nics`, `numa_nodes`, `pcie_devices` and `links`, and `typical_latency_us`:
// the small-message latency of each link class that ceilings.csv gives, for the reporter to judge
// ping-pong rows by) and a readable table.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "topology/ceilings.h"
#include "topology/link_derivation.h"
#include "topology/nccl_log.h"
#include "topology/node_topology.h"

namespace wb {

struct NodeReport {
  NodeTopology node;
  std::vector<DerivedLink> links;
};

struct NcclReport {
  std::string source;
  NcclLog log;
  std::vector<std::string> misconfigurations;
};

nlohmann::json topology_json(const std::vector<NodeReport>& nodes, const std::optional<NcclReport>& nccl,
                             const CeilingsDb& ceilings);
std::string topology_table(const std::vector<NodeReport>& nodes, const std::optional<NcclReport>& nccl);

}  // namespace wb
