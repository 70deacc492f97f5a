// The GPU cases of wb-p2p and wb-host, measured with the copy-leg engine (gpu/copy_legs.h).
#include <cuda_runtime.h>

#include <fstream>

#include "gpu/checked_cuda.h"
#include "gpu/copy_legs.h"
#include "gpu/gpu_runtime_info.h"
#include "harness/endpoint_name.h"
#include "harness/extra_items.h"
#include "harness/judging.h"
#include "harness/size_spec.h"
#include "host/numa_memory.h"
#include "p2p/gpu_cases.h"

namespace wb {
namespace {

std::string gpu_name(const std::string& host, int gpu) { return endpoint_name(host, EndpointKind::kGpu, gpu); }

bool peer_access(int a, int b) {
  if (a == b) return true;
  int can = 0;
  WB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
  return can != 0;
}

void enable_peer_access(int gpus) {
  for (int a = 0; a < gpus; ++a)
    for (int b = 0; b < gpus; ++b) {
      if (a == b || !peer_access(a, b)) continue;
      WB_CUDA_CHECK(cudaSetDevice(a));
      const cudaError_t rc = cudaDeviceEnablePeerAccess(b, 0);
      if (rc == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();  // fine: enabled before
      else WB_CUDA_CHECK(rc);
    }
  WB_CUDA_CHECK(cudaSetDevice(0));
}

// The GPU's own NUMA node from sysfs (via its PCI address), 0 when unknown.
int numa_node_of(int device) {
  char bdf[32] = {};
  if (cudaDeviceGetPCIBusId(bdf, sizeof bdf, device) != cudaSuccess) return 0;
  std::string id(bdf);
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::ifstream in("/sys/bus/pci/devices/" + id + "/numa_node");
  int node = 0;
  if (!(in >> node) || node < 0) return 0;
  return node;
}

std::size_t copies_for(std::uint64_t bytes) {
  return static_cast<std::size_t>(std::clamp<std::uint64_t>((256ull << 20) / std::max<std::uint64_t>(bytes, 1), 1, 100));
}

}  // namespace

int add_p2p_cases(MultiRankBenchmarks& harness, const P2pCaseOptions& options) {
  const GpuAvailability gpus = gpu_availability();
  if (gpus.unavailable_reason) {
    skip_p2p_cases(harness, options, *gpus.unavailable_reason);
    return 0;
  }
  const int n = gpus.count;
  enable_peer_access(n);
  const auto timeout = options.timeout;
  for (const auto& pattern : options.patterns) {
    for (const GpuPair& pair : plan_gpu_pairs(n)) {
      const bool peers = peer_access(pair.src, pair.dst);
      if (not_applicable(pattern, pair, peers, n)) continue;
      for (std::uint64_t bytes : options.sizes) {
        CaseInfo info;
        info.row.bench = "p2p";
        info.row.case_name = pattern.name();
        info.row.backend = "cuda";
        info.row.link_class = pair.src == pair.dst ? "device" : options.link_class(pair.src, pair.dst);
        info.row.src = gpu_name(options.host, pair.src);
        info.row.dst = pattern.shape == Shape::kPair ? gpu_name(options.host, pair.dst)
                                                     : (pattern.shape == Shape::kAllToOne ? "all->" : "->all");
        info.row.direction = pattern.bidirectional ? "bidir" : "uni";
        info.row.op = "copy";
        info.row.dtype = "uint8";
        info.row.bytes = bytes;
        info.row.ranks = 1;
        info.row.nodes = 1;
        const std::size_t copies = copies_for(bytes);
        ExtraItems extra;
        extra.set("copies", copies);
        if (staged_through_host(pattern, pair, peers)) extra.set("staged", "host");
        extra.set("initiator", "gpu" + std::to_string(initiating_gpu(pattern, pair)));
        info.row.extra = extra.text();
        info.bytes_per_op = bytes_per_op(pattern, bytes, n);
        info.row.judged = transfer_judged(info.bytes_per_op);
        info.row.rerun = "wb-p2p --tests copy --patterns " + pattern.name() + " --sizes " + std::to_string(bytes);
        info.name = "p2p/" + pattern.name() + "/gpu" + std::to_string(pair.src) +
                    (pattern.shape == Shape::kPair ? "->gpu" + std::to_string(pair.dst) : std::string()) + "/" +
                    format_size(bytes);
        harness.add(std::move(info), [pattern, pair, bytes, copies, n, timeout] {
          std::vector<CopyLeg> legs;
          const bool sm = pattern.initiator == Initiator::kSm;
          auto leg = [&](int from, int to) {
            CopyLeg l;
            l.src = device_buffer(from, bytes, timeout);
            l.dst = device_buffer(to, bytes, timeout);
            l.device = pattern.access == Access::kWrite ? from : to;
            l.sm = sm;
            legs.push_back(l);
          };
          if (pattern.shape == Shape::kAllToOne) {
            for (int g = 0; g < n; ++g)
              if (g != pair.dst) leg(g, pair.dst);
          } else if (pattern.shape == Shape::kOneToAll) {
            for (int g = 0; g < n; ++g)
              if (g != pair.src) leg(pair.src, g);
          } else {
            leg(pair.src, pair.dst);
            if (pattern.bidirectional) leg(pair.dst, pair.src);
          }
          return make_copy_legs_batch(std::move(legs), copies, timeout);
        });
      }
    }
  }
  if (options.latency) {
    for (const GpuPair& pair : plan_gpu_pairs(n)) {
      if (pair.src != pair.dst && !peer_access(pair.src, pair.dst)) continue;
      CaseInfo info;
      info.row.bench = "p2p";
      info.row.case_name = "latency";
      info.row.backend = "cuda";
      info.row.link_class = pair.src == pair.dst ? "device" : options.link_class(pair.src, pair.dst);
      info.row.src = gpu_name(options.host, pair.src);  // the GPU doing the loads
      info.row.dst = gpu_name(options.host, pair.dst);  // the GPU whose memory is read
      info.row.direction = "uni";
      info.row.op = "pointer_chase";
      info.row.dtype = "uint8";
      info.row.bytes = options.latency_bytes;
      info.row.ranks = info.row.nodes = 1;
      info.row.judged = transfer_judged(0);  // a latency: held against its siblings
      info.row.rerun = "wb-p2p --tests latency --latency-bytes " + std::to_string(options.latency_bytes);
      info.name = "p2p/latency/gpu" + std::to_string(pair.src) + "->gpu" + std::to_string(pair.dst) + "/" +
                  format_size(options.latency_bytes);
      const std::uint64_t bytes = options.latency_bytes;
      harness.add(std::move(info), [pair, bytes, timeout] {
        return make_gpu_chase_batch(pair.src, device_buffer(pair.dst, bytes, timeout), 100000, timeout);
      });
    }
  }
  return n;
}

int add_host_gpu_cases(MultiRankBenchmarks& harness, NumaMemory& numa, const HostGpuCaseOptions& options) {
  const GpuAvailability gpus = gpu_availability();
  if (gpus.unavailable_reason) {
    skip_host_gpu_cases(harness, options, *gpus.unavailable_reason);
    return 0;
  }
  const int n = gpus.count;
  const auto timeout = options.timeout;
  NumaMemory* memory = &numa;
  auto add = [&](const std::string& kind, const std::string& src, const std::string& dst, const std::string& placement,
                 std::uint64_t bytes, double bytes_per_op, const std::string& name, MultiRankBenchmarks::BatchFactory make) {
    CaseInfo info;
    info.row.bench = "host";
    info.row.case_name = kind;
    info.row.backend = "cuda";
    info.row.link_class = "pcie";
    info.row.src = src;
    info.row.dst = dst;
    info.row.direction = kind.starts_with("bidir") ? "bidir" : "uni";
    info.row.op = "copy";
    info.row.dtype = "uint8";
    info.row.bytes = bytes;
    info.row.ranks = info.row.nodes = 1;
    info.row.extra = ExtraItems().set("numa", placement).text();
    info.bytes_per_op = bytes_per_op;
    info.row.judged = host_gpu_case_judged(kind, bytes_per_op);
    info.row.rerun = "wb-host --tests gpu --sizes " + std::to_string(bytes);
    info.name = name;
    harness.add(std::move(info), std::move(make));
  };
  for (std::uint64_t bytes : options.sizes) {
    const std::size_t copies = copies_for(bytes);
    for (int g = 0; g < n; ++g) {
      const int local = numa_node_of(g);
      std::vector<std::pair<std::string, int>> placements = {{"local", local}};
      for (int node : numa.nodes())
        if (node != local) {
          placements.push_back({"remote", node});
          break;
        }
      const std::string gpu = gpu_name(options.host, g);
      for (const auto& [where, node] : placements) {
        const std::string host_side = endpoint_name(options.host, EndpointKind::kNuma, node);
        for (bool pinned : {true, false}) {
          if (!pinned && where == "remote") continue;  // pageable is measured where it matters: locally
          const std::string memory_kind = pinned ? "pinned" : "pageable";
          const std::string suffix = "/gpu" + std::to_string(g) + "/" + where + "/" + format_size(bytes);
          add("h2d_" + memory_kind, host_side, gpu, where, bytes, static_cast<double>(bytes),
              "host/h2d/" + memory_kind + suffix, [memory, node, g, bytes, pinned, copies, timeout] {
                return make_copy_legs_batch({{g, device_buffer(g, bytes, timeout), host_buffer(*memory, node, bytes, pinned), false}},
                                            copies, timeout);
              });
          add("d2h_" + memory_kind, gpu, host_side, where, bytes, static_cast<double>(bytes),
              "host/d2h/" + memory_kind + suffix, [memory, node, g, bytes, pinned, copies, timeout] {
                return make_copy_legs_batch({{g, host_buffer(*memory, node, bytes, pinned), device_buffer(g, bytes, timeout), false}},
                                            copies, timeout);
              });
        }
        if (where == "local") {
          add("bidir_pinned", host_side, gpu, where, bytes, 2.0 * static_cast<double>(bytes),
              "host/bidir/pinned/gpu" + std::to_string(g) + "/" + format_size(bytes), [memory, node, g, bytes, copies, timeout] {
                return make_copy_legs_batch(
                    {{g, device_buffer(g, bytes, timeout), host_buffer(*memory, node, bytes, true), false},
                     {g, host_buffer(*memory, node, bytes, true), device_buffer(g, bytes, timeout), false}},
                    copies, timeout);
              });
        }
      }
    }
    // Every GPU at once, each from its own NUMA node: a shared switch or root port shows here.
    for (bool to_device : {true, false}) {
      add(to_device ? "all_gpus_h2d" : "all_gpus_d2h", options.host + "/host", options.host + "/all-gpus", "local",
          bytes, static_cast<double>(bytes) * n,
          std::string("host/all_gpus/") + (to_device ? "h2d/" : "d2h/") + format_size(bytes),
          [memory, n, bytes, copies, timeout, to_device] {
            std::vector<CopyLeg> legs;
            for (int g = 0; g < n; ++g) {
              auto device = device_buffer(g, bytes, timeout);
              auto host = host_buffer(*memory, numa_node_of(g), bytes, true);
              legs.push_back(to_device ? CopyLeg{g, device, host, false} : CopyLeg{g, host, device, false});
            }
            return make_copy_legs_batch(std::move(legs), copies, timeout);
          });
    }
  }
  for (int g = 0; g < n; ++g) {
    const int local = numa_node_of(g);
    CaseInfo info;
    info.row.bench = "host";
    info.row.case_name = "gpu_host_latency";
    info.row.backend = "cuda";
    info.row.link_class = "pcie";
    info.row.src = gpu_name(options.host, g);
    info.row.dst = endpoint_name(options.host, EndpointKind::kNuma, local);
    info.row.direction = "uni";
    info.row.op = "pointer_chase";
    info.row.dtype = "uint8";
    info.row.bytes = options.latency_bytes;
    info.row.ranks = info.row.nodes = 1;
    info.row.judged = transfer_judged(0);  // a latency: held against its siblings
    info.row.rerun = "wb-host --tests gpu";
    info.name = "host/latency/gpu" + std::to_string(g) + "->numa" + std::to_string(local);
    const std::uint64_t bytes = options.latency_bytes;
    harness.add(std::move(info), [memory, g, local, bytes, timeout] {
      return make_gpu_chase_batch(g, host_buffer(*memory, local, bytes, true), 10000, timeout);
    });
  }
  return n;
}

}  // namespace wb
