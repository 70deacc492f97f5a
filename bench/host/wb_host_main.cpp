// wb-host: host links. On any machine: the NUMA-node to NUMA-node memcpy bandwidth matrix and the
// memory latency matrix (pointer chase), every copy checked. With GPUs: per GPU, H2D and D2H with
// pinned and pageable memory on the GPU's own NUMA node and a remote one, both directions at once,
// all GPUs at once (a shared switch or root port shows), and GPU-to-host latency; without a GPU
// those are SKIP rows with the reason. Single process: run it without mpiexec.
#include <cstdio>
#include <fstream>
#include <map>

#include "harness/endpoint_name.h"
#include "harness/extra_items.h"
#include "harness/judging.h"
#include "runner/benchmark_main.h"
#include "comm/mpi_control.h"
#include "gpu/gpu_runtime_info.h"
#include "harness/errors.h"
#include "harness/matrix_table.h"
#include "runner/mpi_program.h"
#include "runner/multi_rank_benchmarks.h"
#include "harness/results_csv_reader.h"
#include "harness/size_spec.h"
#include "harness/option_parser.h"
#include "host/host_batches.h"
#include "p2p/gpu_cases.h"

namespace wb {
namespace {

struct HostOptions {
  bool copy = true, latency = true, gpu = true;
  std::vector<std::uint64_t> sizes = {256ull << 20};
  std::uint64_t latency_bytes = 256ull << 20;
  HarnessOptions harness;
};

void declare_host_options(OptionParser& p, HostOptions& o) {
  p.group("What to measure");
  p.value("--tests", "LIST", "numa_copy, latency, gpu (default all three; gpu: the host-GPU links)", [&](const std::string& v) {
    o.copy = o.latency = o.gpu = false;
    for (const auto& test : split_list(v)) {
      if (test == "numa_copy") o.copy = true;
      else if (test == "latency") o.latency = true;
      else if (test == "gpu") o.gpu = true;
      else throw UsageError("--tests: '" + test + "' is not numa_copy, latency or gpu");
    }
    if (!o.copy && !o.latency && !o.gpu) throw UsageError("--tests: no test named");
  });
  p.value("--sizes", "SPEC", std::string("memcpy sizes (default 256MiB: far beyond the caches). ") + kSizeUnitsHelp,
          [&](const std::string& v) { o.sizes = parse_size_spec(v); });
  p.value("--latency-bytes", "SIZE", "buffer of the pointer chase (default 256MiB)", [&](const std::string& v) {
    o.latency_bytes = parse_size(v);
    if (o.latency_bytes < 64 * 1024) throw UsageError("--latency-bytes: at least 64KiB (1024 cache lines)");
  });
  declare_harness_options(p, o.harness);
}

constexpr const char* kSynopsis =
    "wb-host: host memory bandwidth between NUMA nodes and pointer-chase latency (mbw, lmbench)\n"
    "usage: wb-host [options] [--benchmark_* options]   (one process; no mpiexec needed)";

HostOptions parse_host_options(CommandLine& args) {
  HostOptions o;
  OptionParser parser("wb-host", kSynopsis);
  declare_host_options(parser, o);
  parser.parse(args);
  return o;
}

std::string host_help() {
  HostOptions o;
  OptionParser parser("wb-host", kSynopsis);
  declare_host_options(parser, o);
  return parser.help();
}

std::string numa_name(const std::string& host, int node) { return endpoint_name(host, EndpointKind::kNuma, node); }

class HostRun {
 public:
  HostRun(MpiProgram& program, const HostOptions& options, const CommandLine& args)
      : program_(program), options_(options), args_(args), control_(MPI_COMM_WORLD, options.harness.timeout),
        harness_(control_, options.harness) {}

  int run() {
    const auto& nodes = numa_.nodes();
    for (int src : nodes)
      for (int dst : nodes) {
        if (options_.copy)
          for (std::uint64_t bytes : options_.sizes) add_copy(src, dst, bytes);
        if (options_.latency) add_latency(src, dst);
      }
    if (options_.gpu) {
      HostGpuCaseOptions gpu;
      gpu.sizes = options_.sizes;
      gpu.timeout = options_.harness.timeout;
      gpu.host = program_.host();
      add_host_gpu_cases(harness_, numa_, gpu);
    }
    const std::string results = options_.harness.run_dir + "/results.csv";
    const std::size_t before = std::ifstream(results).good() ? read_results_csv(results).rows.size() : 0;
    const int code = harness_.run(args_, program_.run_metadata({program_.host()}, args_, gpu_library_versions()));
    print_matrices(results, before);
    if (!numa_.binding_note().empty()) std::fprintf(stderr, "wb-host: %s\n", numa_.binding_note().c_str());
    return code;
  }

  MultiRankBenchmarks& harness() { return harness_; }

 private:
  ResultRow base_row(const char* case_name, int a, int b) const {
    ResultRow row;
    row.bench = "host";
    row.case_name = case_name;
    row.backend = "host";
    row.link_class = "host";
    row.src = numa_name(program_.host(), a);
    row.dst = numa_name(program_.host(), b);
    row.direction = "uni";
    row.dtype = "uint8";
    row.ranks = 1;
    row.nodes = 1;
    return row;
  }

  void add_copy(int src, int dst, std::uint64_t bytes) {
    const NumaCopyConfig config{src, dst, bytes, copies_per_batch(bytes)};
    CaseInfo info;
    info.row = base_row("numa_copy", src, dst);
    info.row.op = "memcpy";
    info.row.bytes = bytes;
    info.row.extra = ExtraItems().set("copies", config.copies).set("thread", "numa" + std::to_string(dst)).text();
    info.bytes_per_op = static_cast<double>(bytes);
    info.row.judged = transfer_judged(info.bytes_per_op);
    info.row.rerun = "wb-host --tests numa_copy --sizes " + std::to_string(bytes);
    info.name = "host/memcpy/numa" + std::to_string(src) + "->numa" + std::to_string(dst) + "/" + format_size(bytes);
    harness_.add(std::move(info), [this, config] { return make_numa_copy_batch(numa_, config); });
  }

  void add_latency(int cpu, int memory) {
    MemoryLatencyConfig config;
    config.cpu_node = cpu;
    config.memory_node = memory;
    config.bytes = options_.latency_bytes;
    CaseInfo info;
    // src: the CPUs doing the loads; dst: the memory they load from
    info.row = base_row("memory_latency", cpu, memory);
    info.row.op = "pointer_chase";
    info.row.bytes = config.bytes;
    info.row.extra = ExtraItems().set("hops", config.hops).set("node_bytes", std::uint64_t{64}).text();
    info.bytes_per_op = 0;  // a latency: no bandwidth
    info.row.judged = transfer_judged(0);  // held against its siblings
    info.row.rerun = "wb-host --tests latency --latency-bytes " + std::to_string(config.bytes);
    info.name = "host/latency/cpu-numa" + std::to_string(cpu) + "->mem-numa" + std::to_string(memory) + "/" +
                format_size(config.bytes);
    harness_.add(std::move(info), [this, config] { return make_memory_latency_batch(numa_, config); });
  }

  // nvbandwidth-style matrices of what this run measured (the largest copy size).
  void print_matrices(const std::string& results, std::size_t before) {
    const ResultsFile file = read_results_csv(results);
    const auto& nodes = numa_.nodes();
    std::map<std::pair<std::string, std::string>, ResultRow> copy, latency;
    std::uint64_t largest = 0;
    for (std::size_t i = before; i < file.rows.size(); ++i)
      if (file.rows[i].case_name == "numa_copy") largest = std::max(largest, file.rows[i].bytes);
    for (std::size_t i = before; i < file.rows.size(); ++i) {
      const ResultRow& r = file.rows[i];
      if (r.status != RowStatus::kOk) continue;
      if (r.case_name == "numa_copy" && r.bytes == largest) copy[{r.src, r.dst}] = r;
      if (r.case_name == "memory_latency") latency[{r.src, r.dst}] = r;
    }
    MatrixTable bandwidth{"memcpy bandwidth (GB/s), " + format_size(largest), "source", "destination", {}, {}, {}};
    MatrixTable load{"memory latency (ns per dependent load)", "CPUs", "memory", {}, {}, {}};
    for (int n : nodes) {
      bandwidth.rows.push_back("numa" + std::to_string(n));
      bandwidth.columns.push_back("numa" + std::to_string(n));
    }
    load.rows = load.columns = bandwidth.rows;
    for (int a : nodes) {
      bandwidth.values.emplace_back();
      load.values.emplace_back();
      for (int b : nodes) {
        const auto key = std::make_pair(numa_name(program_.host(), a), numa_name(program_.host(), b));
        const auto c = copy.find(key);
        bandwidth.values.back().push_back(c == copy.end() ? std::nullopt : std::optional(c->second.algbw_GBps));
        const auto l = latency.find(key);
        load.values.back().push_back(l == latency.end() ? std::nullopt : std::optional(l->second.time_us * 1000.0));
      }
    }
    if (options_.copy && largest > 0) std::printf("\n%s", format_matrix(bandwidth).c_str());
    if (options_.latency) std::printf("\n%s", format_matrix(load, 1).c_str());
  }

  MpiProgram& program_;
  const HostOptions& options_;
  const CommandLine& args_;
  MpiControl control_;
  MultiRankBenchmarks harness_;
  NumaMemory numa_;
};

}  // namespace
}  // namespace wb

int main(int argc, char** argv) {
  return wb::benchmark_main<wb::HostRun, wb::HostOptions>(
      argc, argv, wb::host_help, [](wb::CommandLine& args, const wb::MpiProgram& program) {
        wb::HostOptions options = wb::parse_host_options(args);
        if (program.size() != 1)
          throw wb::UsageError("wb-host is one process that sees the whole node; run it without mpiexec -n " +
                               std::to_string(program.size()));
        return options;
      });
}
