// wb-p2p: GPU to GPU bandwidth (copy engines and SM copies, write and read, one way and both,
// all-to-one and one-to-all contention) and latency (pointer chase over peer memory), for every
// GPU pair and each GPU with itself; GPU x GPU matrices printed like nvbandwidth's. One process
// that sees all GPUs of the node; without a GPU it writes SKIP rows with the reason.
#include <cstdio>
#include <fstream>
#include <map>

#include "comm/mpi_control.h"
#include "gpu/gpu_runtime_info.h"
#include "harness/endpoint_name.h"
#include "harness/errors.h"
#include "harness/version.h"
#include "harness/matrix_table.h"
#include "runner/mpi_program.h"
#include "harness/results_csv_reader.h"
#include "harness/size_spec.h"
#include "harness/option_parser.h"
#include "p2p/gpu_cases.h"
#include "topology/live_discovery.h"

namespace wb {
namespace {

struct P2pOptions {
  P2pCaseOptions cases;
  bool copy = true;
  HarnessOptions harness;
};

constexpr const char* kSynopsis =
    "wb-p2p: GPU-to-GPU copy bandwidth and latency over NVLink and PCIe (nvbandwidth's patterns)\n"
    "usage: wb-p2p [options] [--benchmark_* options]   (one process for all GPUs; no mpiexec needed)";

void declare_p2p_options(OptionParser& p, P2pOptions& o) {
  p.group("What to measure");
  p.value("--patterns", "LIST",
          "ce/write, ce/read, sm/write, sm/read, each also /bidir, ce/write/all_to_one, ce/write/one_to_all, or all "
          "(default all)",
          [&](const std::string& v) {
            if (v == "all") return;
            o.cases.patterns.clear();
            for (const auto& name : split_list(v)) o.cases.patterns.push_back(parse_copy_pattern(name));
          });
  p.value("--sizes", "SPEC", std::string("copy sizes (default 256MiB). ") + kSizeUnitsHelp,
          [&](const std::string& v) { o.cases.sizes = parse_size_spec(v); });
  p.value("--tests", "LIST", "copy, latency (default both)", [&](const std::string& v) {
    o.copy = o.cases.latency = false;
    for (const auto& test : split_list(v)) {
      if (test == "copy") o.copy = true;
      else if (test == "latency") o.cases.latency = true;
      else throw UsageError("--tests: '" + test + "' is not copy or latency");
    }
  });
  p.value("--latency-bytes", "SIZE", "buffer of the pointer chase (default 64MiB)", [&](const std::string& v) {
    o.cases.latency_bytes = parse_size(v);
    if (o.cases.latency_bytes < 64 * 1024) throw UsageError("--latency-bytes: at least 64KiB");
  });
  declare_harness_options(p, o.harness);
}

P2pOptions parse_p2p_options(CommandLine& args) {
  P2pOptions o;
  OptionParser parser("wb-p2p", kSynopsis);
  declare_p2p_options(parser, o);
  parser.parse(args);
  if (!o.copy) o.cases.patterns.clear();
  o.cases.timeout = o.harness.timeout;
  return o;
}

std::string p2p_help() {
  P2pOptions o;
  OptionParser parser("wb-p2p", kSynopsis);
  declare_p2p_options(parser, o);
  return parser.help();
}

// nvbandwidth-style GPU x GPU matrices of what this run measured, one per pattern (largest size).
void print_matrices(const std::string& results, std::size_t before, int gpus, const std::string& host) {
  if (gpus == 0) return;
  const ResultsFile file = read_results_csv(results);
  std::map<std::string, std::map<std::pair<std::string, std::string>, double>> by_case;
  std::map<std::string, std::uint64_t> largest;
  for (std::size_t i = before; i < file.rows.size(); ++i)
    if (file.rows[i].bench == "p2p") largest[file.rows[i].case_name] = std::max(largest[file.rows[i].case_name], file.rows[i].bytes);
  for (std::size_t i = before; i < file.rows.size(); ++i) {
    const ResultRow& r = file.rows[i];
    if (r.bench != "p2p" || r.status != RowStatus::kOk || r.bytes != largest[r.case_name]) continue;
    by_case[r.case_name][{r.src, r.dst}] = r.case_name == "latency" ? r.time_us * 1000.0 : r.algbw_GBps;
  }
  for (const auto& [case_name, cells] : by_case) {
    const bool latency = case_name == "latency";
    MatrixTable t{latency ? "latency (ns per dependent load)" : case_name + " bandwidth (GB/s), " + format_size(largest[case_name]),
                  latency ? "loads from" : "source", latency ? "memory of" : "destination", {}, {}, {}};
    for (int g = 0; g < gpus; ++g) {
      t.rows.push_back("gpu" + std::to_string(g));
      t.columns.push_back("gpu" + std::to_string(g));
    }
    for (int a = 0; a < gpus; ++a) {
      t.values.emplace_back();
      for (int b = 0; b < gpus; ++b) {
        const auto it = cells.find({endpoint_name(host, EndpointKind::kGpu, a), endpoint_name(host, EndpointKind::kGpu, b)});
        t.values.back().push_back(it == cells.end() ? std::nullopt : std::optional(it->second));
      }
    }
    std::printf("\n%s", format_matrix(t, latency ? 0 : 2).c_str());
  }
}

}  // namespace
}  // namespace wb

int main(int argc, char** argv) {
  if (wb::answer_version(argc, argv)) return wb::kExitOk;
  wb::MpiProgram program(argc, argv);
  wb::CommandLine args(argc, argv);
  if (args.asks_for_help()) {
    if (program.rank() == 0) std::fputs(wb::p2p_help().c_str(), stdout);
    return wb::kExitOk;
  }
  wb::P2pOptions options;
  if (!program.parse([&] {
        options = wb::parse_p2p_options(args);
        if (program.size() != 1)
          throw wb::UsageError("wb-p2p is one process that sees all GPUs of the node; run it without mpiexec -n " +
                               std::to_string(program.size()));
      }))
    return wb::kExitUsage;
  std::unique_ptr<wb::MultiRankBenchmarks> harness;
  return program.run(
      [&] {
        wb::MpiControl control(MPI_COMM_WORLD, options.harness.timeout);
        harness = std::make_unique<wb::MultiRankBenchmarks>(control, options.harness);
        // GPU pairs joined by NVLink in nvidia-smi's matrix are nvlink; the others pcie.
        const wb::NodeTopology node = wb::discover_node();
        options.cases.host = program.host();
        options.cases.link_class = [&node](int a, int b) -> std::string {
          if (!node.matrix) return "pcie";
          std::optional<std::size_t> ma, mb;
          for (std::size_t i : node.matrix->gpu_indices()) {
            if (node.matrix->devices[i].index == a) ma = i;
            if (node.matrix->devices[i].index == b) mb = i;
          }
          return ma && mb && node.matrix->at(*ma, *mb).kind == wb::PathKind::kNvlink ? "nvlink" : "pcie";
        };
        const int gpus = wb::add_p2p_cases(*harness, options.cases);
        const std::string results = options.harness.run_dir + "/results.csv";
        const std::size_t before = std::ifstream(results).good() ? wb::read_results_csv(results).rows.size() : 0;
        const int code = harness->run(args, program.run_metadata({program.host()}, args, wb::gpu_library_versions()));
        wb::print_matrices(results, before, gpus, program.host());
        if (gpus == 0) std::fprintf(stderr, "wb-p2p: no GPU measured; SKIP rows in %s\n", results.c_str());
        return code;
      },
      [&](const std::string& why) {
        if (harness) harness->record_interruption(why);
      });
}
