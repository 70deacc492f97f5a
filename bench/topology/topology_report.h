// The two faces of `wirebench topo`: a JSON document (an object with `nodes`, each with
// `hostname`, `gpus`, `nics`, `numa_nodes`, `pcie_devices`, `links` and `nccl_expectations`, and `typical_latency_us`:
// the small-message latency of each link class that ceilings.csv gives, for the reporter to judge
// ping-pong rows by) and a readable table.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "topology/ceilings.h"
#include "topology/link_derivation.h"
#include "topology/node_topology.h"

namespace wb {

// What an NCCL all_reduce over every GPU of nodes like this one should reach (bus bandwidth at
// large sizes, NCCL's algorithms on the node's links: cli/collective_expectations.h), on one node,
// two, and three or more. In topology.json as `nccl_expectations`; the reporter judges NCCL
// collective rows against them.
struct CollectiveExpectation {
  std::string op = "all_reduce";
  std::string nodes;          // "1", "2", "3+"
  int gpus_per_node = 0;
  std::string algorithm;      // ring, tree, nvls, nvls_tree
  bool nccl_choice = false;   // NCCL's own pick at large sizes; the ring's is what NCCL_ALGO=Ring measures
  double busbw_GBps = 0;
  double healthy_fraction = 0.8;
  std::string reason, source;
};

struct NodeReport {
  NodeTopology node;
  std::vector<DerivedLink> links;
  std::vector<CollectiveExpectation> collectives;
  std::string collectives_note;  // why there are none, or fewer (no NVSwitch, no NIC rate)
};

// An NCCL log's `nccl` section comes from the Python diagnosis (topology/nccl_handover.h).
nlohmann::json topology_json(const std::vector<NodeReport>& nodes, const CeilingsDb& ceilings);
std::string topology_table(const std::vector<NodeReport>& nodes);

}  // namespace wb
