#include "cli/place_command.h"

#include <cstdio>
#include <optional>

#include "harness/command_line.h"
#include "harness/errors.h"
#include "harness/option_parser.h"
#include "topology/gpu_placement.h"
#include "topology/live_discovery.h"

namespace wb {
namespace {

struct PlaceOptions {
  std::optional<std::string> matrix_file;
  std::string gpus, top = "5", nodes = "1", tp, dp;
};

void declare_place_options(OptionParser& p, PlaceOptions& o) {
  p.value("--gpus", "K", "the job's GPUs on this node (required)", [&o](const std::string& v) { o.gpus = v; });
  p.value("--nvidia-smi-topo", "FILE", "read saved `nvidia-smi topo -m` output instead of the live machine",
          [&o](const std::string& v) { o.matrix_file = v; });
  p.value("--top", "N", "how many of the best sets to list (default 5)", [&o](const std::string& v) { o.top = v; });
  p.value("--tp", "T", "tensor-parallel size: lay out T x --dp ranks over --nodes nodes of this wiring",
          [&o](const std::string& v) { o.tp = v; });
  p.value("--dp", "D", "data-parallel size (default: what fills the nodes)", [&o](const std::string& v) { o.dp = v; });
  p.value("--nodes", "N", "nodes of this wiring for --tp (default 1)", [&o](const std::string& v) { o.nodes = v; });
}

constexpr const char* kPlaceSynopsis =
    "wirebench place: which GPUs of a node to give a job. Every K-GPU set is ranked by its slowest pair\n"
    "(NVLink bundles, more links first; then one PCIe switch, several, a host bridge, a socket, across\n"
    "sockets), then by GPUs with a NIC on their switch, then by NUMA nodes spanned.\n"
    "usage: wirebench place --gpus K [--nvidia-smi-topo FILE] [--tp T [--dp D] [--nodes N]]";

int whole(const std::string& flag, const std::string& text) { return static_cast<int>(parse_whole_number(flag, text, 1)); }

}  // namespace

std::string place_help() {
  PlaceOptions o;
  OptionParser parser("wirebench place", kPlaceSynopsis);
  declare_place_options(parser, o);
  return parser.help();
}

int run_place_command(CommandLine& args) {
  PlaceOptions o;
  OptionParser parser("wirebench place", kPlaceSynopsis);
  declare_place_options(parser, o);
  parser.parse(args);
  if (args.benchmark_arguments().size() > 1) throw UsageError("unknown option " + args.benchmark_arguments()[1]);
  if (o.gpus.empty()) throw UsageError("--gpus: how many GPUs the job takes on this node (e.g. --gpus 4)");
  const int k = whole("--gpus", o.gpus), top = whole("--top", o.top);
  TopoMatrix matrix;
  std::string source;
  if (o.matrix_file) {
    matrix = read_nvidia_smi_topo(*o.matrix_file);
    source = *o.matrix_file;
  } else {
    const NodeTopology node = discover_node();
    if (!node.matrix || node.matrix->gpu_indices().empty())
      throw UsageError("no GPUs found on this machine (nvidia-smi topo -m gave none): give --nvidia-smi-topo FILE");
    matrix = *node.matrix;
    source = node.hostname + " (nvidia-smi topo -m)";
  }
  const std::vector<GpuSet> ranked = rank_gpu_sets(matrix, k);
  std::printf("wirebench place: %d of %zu GPUs, %s: %zu sets, best first\n", k, matrix.gpu_indices().size(),
              source.c_str(), ranked.size());
  std::printf("%4s  %-22s %-12s %8s %8s %5s\n", "rank", "CUDA_VISIBLE_DEVICES", "slowest pair", "at worst",
              "NIC near", "NUMA");
  for (int i = 0; i < top && i < static_cast<int>(ranked.size()); ++i) {
    const GpuSet& s = ranked[static_cast<std::size_t>(i)];
    std::printf("%4d  %-22s %-12s %8d %8d %5d\n", i + 1, s.cuda_visible_devices().c_str(), s.bottleneck.text().c_str(),
                s.pairs_at_bottleneck, s.gpus_near_a_nic, s.numa_nodes);
  }
  std::printf("\nexport CUDA_VISIBLE_DEVICES=%s\n", ranked.front().cuda_visible_devices().c_str());
  std::printf("(at worst: the pairs over the slowest path; NIC near: GPUs with a NIC on their PCIe switch; NUMA: "
              "nodes spanned)\n");
  for (const std::string& w : placement_warnings(matrix, ranked)) std::printf("warning: %s\n", w.c_str());
  std::printf("\n# gres.conf for this node (Slurm): Links= counts NVLinks to each GPU in order, -1 itself, 0 none;\n"
              "# with them Slurm's own allocation prefers connected GPUs (AutoDetect=nvml derives the same)\n");
  for (const std::string& line : gres_conf_lines(matrix)) std::printf("%s\n", line.c_str());
  if (!o.tp.empty()) {
    const int tp = whole("--tp", o.tp), nodes = whole("--nodes", o.nodes);
    const int dp = o.dp.empty() ? std::max(1, nodes * k / tp) : whole("--dp", o.dp);  // k: --gpus per node
    std::printf("\nTP %d x DP %d on %d node(s), %d GPUs each:\n", tp, dp, nodes, k);
    for (const std::string& line : layout_lines(matrix, nodes, tp, dp, k)) std::printf("  %s\n", line.c_str());
  } else if (!o.dp.empty() || o.nodes != "1") {
    throw UsageError("--dp and --nodes lay out a --tp job: give --tp T");
  }
  return kExitOk;
}

}  // namespace wb
