#include "cli/topo_command.h"

#include "harness/option_parser.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <iostream>
#include <vector>

#include "harness/errors.h"
#include "harness/install_layout.h"
#include "topology/ceilings.h"
#include "topology/collective_expectations.h"
#include "topology/live_discovery.h"
#include "topology/nccl_handover.h"
#include "topology/topology_report.h"

namespace wb {
namespace {

std::string plot_script() { return data_dir() + "/python/tools/topology_png.py"; }

// Single-quoted for the shell (' becomes '\''), so any file name passes through unchanged.
std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Draws with the Python plotting code: JSON on its standard input, the PNG path as argument.
int draw_png(const nlohmann::json& doc, const std::string& png) {
  const std::string command = "python3 " + shell_quoted(plot_script()) + " " + shell_quoted(png);
  FILE* pipe = popen(command.c_str(), "w");
  if (pipe == nullptr) {
    std::fprintf(stderr, "error: cannot start %s\n", command.c_str());
    return kExitInfrastructure;
  }
  const std::string text = doc.dump();
  std::fwrite(text.data(), 1, text.size(), pipe);
  const int status = pclose(pipe);
  if (status != 0) {
    std::fprintf(stderr, "error: drawing %s failed (%s exited with %d)\n", png.c_str(), plot_script().c_str(), status);
    return kExitInfrastructure;
  }
  return kExitOk;
}

// `wirebench topo`'s options: parser and --help from these declarations.
struct TopoOptions {
  bool as_json = false;
  std::optional<std::string> png, matrix_file, p2p_file, nccl_file, hostname, ceilings_file;
  DerivationOptions derivation;
};

void declare_topo_options(OptionParser& p, TopoOptions& o) {
  auto into = [](std::optional<std::string>& field) { return [&field](const std::string& v) { field = v; }; };
  p.value("--nvidia-smi-topo", "FILE", "read saved `nvidia-smi topo -m` output instead of the live machine",
          into(o.matrix_file));
  p.value("--nvidia-smi-p2p", "FILE",
          "with --nvidia-smi-topo: saved `nvidia-smi topo -p2p r` (or w, n): GPU pairs without peer access are "
          "judged as copies through host memory, with nvidia-smi's reason (CNS, GNS, TNS, NS, DR)",
          into(o.p2p_file));
  p.value("--nccl-log", "FILE", "read an NCCL_DEBUG=INFO log: transport per channel, each misconfiguration "
          "docs/nccl-diagnosis.md names (FAIL/WARN, where, why, fix)", into(o.nccl_file));
  p.value("--hostname", "NAME", "the node's name for saved text (default: the file's name)", into(o.hostname));
  p.value("--gpu-model", "NAME", "the GPUs' model for saved text, as nvidia-smi -L names it (H100 80GB HBM3): its "
          "NVLink generation comes first", into(o.derivation.gpu_model));
  p.value("--nvlink-generation", "2|3|4|5|ga102", "NVLink generation when the GPU model is unknown (saved text)",
          into(o.derivation.nvlink_generation));
  p.value("--ceilings", "FILE", "the ceilings database (default: suites/ceilings.csv)", into(o.ceilings_file));
  p.flag("--json", "print JSON instead of the table", [&o] { o.as_json = true; });
  p.value("--png", "FILE", "also draw the topology with matplotlib", into(o.png));
}

constexpr const char* kTopoSynopsis =
    "wirebench topo: this node's wiring (or saved nvidia-smi / NCCL text), every path's link class and ceiling.\n"
    "With no file it discovers this machine: sysfs, hwloc, CUDA and nvidia-smi when present.\n"
    "usage: wirebench topo [options]";

// The verdict in the exit code (docs/results.md, "Exit codes"): 1 where a link is DEGRADED or the
// NCCL log shows a FAIL (docs/nccl-diagnosis.md), else 0. Callers read the JSON for the details.
int topo_exit_code(const std::vector<NodeReport>& nodes, const nlohmann::json& doc) {
  for (const NodeReport& node : nodes)
    for (const DerivedLink& link : node.links)
      if (!link.degraded.empty()) return kExitFailed;
  if (doc.contains("nccl") && nccl_log_fails(doc["nccl"])) return kExitFailed;
  return kExitOk;
}

}  // namespace

std::string topo_help() {
  TopoOptions o;
  OptionParser parser("wirebench topo", kTopoSynopsis);
  declare_topo_options(parser, o);
  return parser.help();
}

int run_topo_command(CommandLine& args) {
  TopoOptions topo;
  OptionParser parser("wirebench topo", kTopoSynopsis);
  declare_topo_options(parser, topo);
  parser.parse(args);
  if (args.benchmark_arguments().size() > 1) throw UsageError("unknown option " + args.benchmark_arguments()[1]);
  const bool as_json = topo.as_json;
  const auto& png = topo.png;
  const auto& matrix_file = topo.matrix_file;
  const auto& nccl_file = topo.nccl_file;
  const auto& hostname = topo.hostname;
  const auto& ceilings_file = topo.ceilings_file;
  DerivationOptions options = topo.derivation;
  if (options.nvlink_generation && *options.nvlink_generation != "2" && *options.nvlink_generation != "3" &&
      *options.nvlink_generation != "4" && *options.nvlink_generation != "5" && *options.nvlink_generation != "ga102")
    throw UsageError("--nvlink-generation: '" + *options.nvlink_generation + "' is not 2, 3, 4, 5 or ga102");

  if (topo.p2p_file && !matrix_file)
    throw UsageError("--nvidia-smi-p2p FILE needs --nvidia-smi-topo FILE (the matrix says which GPUs the node has)");
  if (png && nccl_file && !matrix_file)
    throw UsageError("--png draws a node's wiring; an NCCL log alone describes none: add --nvidia-smi-topo FILE");
  const CeilingsDb ceilings = CeilingsDb::read(ceilings_file.value_or(suites_dir() + "/ceilings.csv"));
  // each GPU model's memory bandwidth: its copies' ceiling (a `device` link a GPU)
  const GpuMemoryDb gpu_memory = GpuMemoryDb::read(suites_dir() + "/gpu-memory.csv");
  options.gpu_memory = &gpu_memory;
  // A file is its own machine: with saved text this machine is not discovered (a log from another
  // cluster must not be described with this node's wiring). No file at all: live discovery.
  std::vector<NodeReport> nodes;
  std::optional<TopoMatrix> matrix;
  if (matrix_file) {
    NodeReport report;
    matrix = read_nvidia_smi_topo(*matrix_file);
    report.node = topology_from_matrix(*matrix, hostname.value_or(std::filesystem::path(*matrix_file).stem().string()));
    report.node.sources.push_back("nvidia-smi topo -m (" + *matrix_file + ")");
    if (topo.p2p_file) {
      report.node.p2p = read_nvidia_smi_p2p(*topo.p2p_file);
      report.node.sources.push_back("nvidia-smi topo -p2p (" + *topo.p2p_file + ")");
    }
    report.links = derive_links(report.node, ceilings, options);
    add_collective_expectations(report, ceilings);
    nodes.push_back(std::move(report));
  } else if (!nccl_file) {
    NodeReport report;
    report.node = discover_node();
    if (hostname) report.node.hostname = *hostname;
    if (report.node.matrix) matrix = report.node.matrix;
    report.links = derive_links(report.node, ceilings, options);
    add_collective_expectations(report, ceilings);
    nodes.push_back(std::move(report));
  }

  nlohmann::json doc = topology_json(nodes, ceilings);
  std::string nccl_lines;  // the diagnosis' readable lines, as Python prints them
  if (nccl_file) {
    // The log's reader, the catalogue and the rules are Python's (topology/nccl_handover.h); a log
    // it cannot read (a directory, an empty file, no NCCL line) ends here: it said why, exit code 3.
    const NcclDiagnosisRun run = diagnose_nccl_log(*nccl_file, doc);
    if (run.exit_code == kExitUsage) return kExitUsage;
    if (run.exit_code != kExitOk)
      throw std::runtime_error("the NCCL diagnosis (python3 -m wirebench.diagnosis) ended with exit code " +
                               std::to_string(run.exit_code));
    doc["nccl"] = *run.nccl;
    nccl_lines = run.table;
  }
  if (as_json) std::cout << doc.dump(2) << "\n";
  else std::cout << topology_table(nodes) << nccl_lines;
  std::cout.flush();
  const int verdict = topo_exit_code(nodes, doc);
  return png ? worse_exit(verdict, draw_png(doc, *png)) : verdict;
}

}  // namespace wb
