// What an NCCL all_reduce over every GPU of nodes like this one should reach, from the node's derived
// links and NCCL's algorithms as NCCL runs them (step/nccl_algorithms.h): the ring's bus bandwidth
// (what NCCL_ALGO=Ring measures) and that of NCCL's own pick at large sizes, on one node, two, and
// three or more of the same kind, at line rate. A separate library from the derivation: it is where
// the topology meets the cost model.
#pragma once

#include "topology/ceilings.h"
#include "topology/topology_report.h"

namespace wb {

// Fills report.collectives from report.links, or says in report.collectives_note why it cannot
// (nothing with fewer than two GPUs): GPUs not all on one NVSwitch (NCCL's rings there follow the links each pair
// has), no NIC with a known rate (then one node only). `ceilings` gives the healthy share of a ring
// over the node's ports together (nics_ring).
void add_collective_expectations(NodeReport& report, const CeilingsDb& ceilings);

}  // namespace wb
