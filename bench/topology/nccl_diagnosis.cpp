#include "topology/nccl_diagnosis.h"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "topology/nccl_warnings.h"

namespace wb {
namespace {

constexpr const char* kEnvDocs = "NCCL documentation, Environment Variables "
                                 "(docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html)";
constexpr const char* kTroubleshooting = "NCCL documentation, Troubleshooting "
                                         "(docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html)";
constexpr const char* kVerbs = "libibverbs, enum ibv_wc_status (infiniband/verbs.h; man ibv_poll_cq)";

// The first message matching `pattern` (with its groups), or none.
std::optional<std::pair<const NcclMessage*, std::smatch>> first(const NcclLog& log, const std::regex& pattern,
                                                                bool warn_only = false) {
  for (const auto& m : log.messages) {
    if (warn_only && !m.warn) continue;
    std::smatch found;
    if (std::regex_search(m.text, found, pattern)) return std::make_pair(&m, found);
  }
  return std::nullopt;
}

// The completion statuses NCCL's IB transport reports, as libibverbs names them.
std::string completion_status(int code) {
  static const std::map<int, std::string> names = {
      {1, "IBV_WC_LOC_LEN_ERR: a message longer than the receive buffer"},
      {2, "IBV_WC_LOC_QP_OP_ERR: a local queue pair error"},
      {4, "IBV_WC_LOC_PROT_ERR: a memory registration or protection error (GPUDirect RDMA's memory not registered: "
          "nvidia-peermem or DMA-BUF)"},
      {5, "IBV_WC_WR_FLUSH_ERR: the queue pair had already failed; an earlier error is the cause"},
      {9, "IBV_WC_REM_INV_REQ_ERR: the peer rejected the request"},
      {10, "IBV_WC_REM_ACCESS_ERR: the peer's memory key was refused"},
      {11, "IBV_WC_REM_OP_ERR: the peer could not complete the operation"},
      {12, "IBV_WC_RETRY_EXC_ERR: transport retries exhausted, the peer never acknowledged: the fabric does not "
           "connect the two nodes (a port down, another subnet or partition, a RoCE route or GID that does not reach, "
           "a cable)"},
      {13, "IBV_WC_RNR_RETRY_EXC_ERR: the peer had no receive posted in time"}};
  const auto it = names.find(code);
  return it != names.end() ? it->second : "status " + std::to_string(code) + " (see ibv_wc_status)";
}

// Every GPU pair of the node on the same number of NVLinks, NVLink 4 or later (NV18): the GPUs sit on
// NVSwitches that can reduce (NVLS, Hopper on).
bool nvswitch_with_nvls(const TopoMatrix* topology) {
  if (topology == nullptr) return false;
  const auto gpus = topology->gpu_indices();
  if (gpus.size() < 4) return false;
  for (std::size_t a : gpus)
    for (std::size_t b : gpus)
      if (a != b && (topology->at(a, b).kind != PathKind::kNvlink || topology->at(a, b).nvlinks < 18)) return false;
  return true;
}

}  // namespace

std::vector<NcclDiagnosis> diagnose_nccl_log(const NcclLog& log, const TopoMatrix* topology) {
  const bool nics_seen = topology != nullptr && !topology->nic_indices().empty();
  std::vector<NcclDiagnosis> out;
  auto add = [&](std::string id, std::string verdict, long line, std::string what, std::string why, std::string fix,
                 std::string source) {
    out.push_back({std::move(id), std::move(verdict), line, std::move(what), std::move(why), std::move(fix),
                   std::move(source)});
  };
  // NCCL's choice (`Using network X`); an older log without that line: the socket transport's own line
  static const std::regex socket_network(R"(^Using network Socket\b)");
  static const std::regex socket_devices(R"(^NET/Socket : Using )");
  static const std::regex ib_disabled(R"(NCCL_IB_DISABLE set by environment to [1-9])");
  static const std::regex net_forced(R"(NCCL_NET set by environment to (\S+))");
  static const std::regex no_plugin(R"(NET/Plugin.*(No plugin found|Could not find|Failed to find|unable to load))",
                                    std::regex::icase);
  static const std::regex ib_list(R"(^NET/IB : Using )");
  static const std::regex no_ib(R"(NET/IB : No device found)");

  // 1. Inter-node traffic on TCP sockets where InfiniBand or RoCE is there to use.
  static const std::regex socket_channel(R"(via NET/Socket/)");
  auto s = log.network ? first(log, socket_network) : first(log, socket_devices);
  if (!s && !log.network) s = first(log, socket_channel);  // a log of channel lines only
  if (s) {
    std::vector<std::string> evidence;
    if (first(log, ib_list)) evidence.push_back("the log lists InfiniBand/RoCE devices (NET/IB : Using ...)");
    if (nics_seen) evidence.push_back("the node's topology lists network devices (mlx5 ...)");
    if (const auto d = first(log, ib_disabled)) evidence.push_back("NCCL_IB_DISABLE is set (line " + std::to_string(d->first->line) + ")");
    if (const auto n = first(log, net_forced)) evidence.push_back("NCCL_NET=" + n->second[1].str() + " (line " + std::to_string(n->first->line) + ")");
    if (const auto p = first(log, no_plugin)) evidence.push_back("a network plugin did not load (line " + std::to_string(p->first->line) + ")");
    if (!evidence.empty()) {
      std::string why = "NCCL fell back to TCP sockets, many times slower than RDMA: ";
      for (std::size_t i = 0; i < evidence.size(); ++i) why += (i ? "; " : "") + evidence[i];
      add("socket-fallback", "FAIL", s->first->line, "NCCL moves inter-node data over TCP sockets (NET/Socket)", why,
          "unset NCCL_IB_DISABLE and NCCL_NET=Socket; check ibv_devinfo on the node (rdma-core, the HCA's driver); "
          "give NCCL the RDMA devices with NCCL_IB_HCA; install the network plugin the cluster uses",
          std::string(kEnvDocs) + ": NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA; NVIDIA/nccl#952, NVIDIA/nccl-tests#188");
    }
  }

  // 2. One device list mixing InfiniBand ports with RoCE (Ethernet) ones.
  {
    bool ib = false, roce = false;
    for (const auto& d : log.ib_devices) {
      ib = ib || d.ends_with("/IB");
      roce = roce || d.ends_with("/RoCE");
    }
    if (ib && roce) {
      const auto l = first(log, ib_list);
      add("mixed-link-layers", "WARN", l ? l->first->line : 0,
          "NCCL's network devices mix InfiniBand and RoCE ports",
          "a rank may pick a RoCE port (a bond, a management NIC) whose peers are on InfiniBand, or share one slower "
          "port: rings run at the slowest port's rate, or do not connect",
          "list only the fabric's ports in NCCL_IB_HCA (e.g. NCCL_IB_HCA=mlx5_0:1,mlx5_1:1,...; '^mlx5_bond_0' "
          "excludes one)", std::string(kEnvDocs) + ": NCCL_IB_HCA; NVIDIA/nccl#366");
    }
  }

  // 3. InfiniBand completion errors: the fabric did not carry the message.
  static const std::regex completion(R"(Got completion (?:from peer (\S+) )?with (?:error |status=)(\d+))");
  if (const auto c = first(log, completion, true)) {
    const int code = std::stoi(c->second[2].str());
    const std::string peer = c->second[1].matched ? " from " + c->second[1].str() : "";
    add("ib-completion-error", "FAIL", c->first->line,
        "an InfiniBand completion error on " + c->first->host + peer + ": " + std::to_string(code),
        completion_status(code),
        code == 12 ? "check both nodes' ports (ibstat: State Active, the same subnet; RoCE: the GID index, "
                     "NCCL_IB_GID_INDEX, and the route), the cables and the switch between them (ibdiagnet)"
                   : "look at the first error of the job (a status 5 follows another); check the ports (ibstat) and "
                     "GPUDirect RDMA's module",
        std::string(kVerbs) + "; " + kTroubleshooting + "; NVIDIA/nccl#1664, NVIDIA/nccl#523");
  }

  // 4. SHARP could not be allocated: CollNet is off.
  static const std::regex sharp(R"((SHARP|sharp).*(No resource|no resource|failed)|CollNet.*(disabled|not available))");
  if (const auto sh = first(log, sharp)) {
    add("collnet-unavailable", "WARN", sh->first->line, "CollNet (SHARP in-network reduction) is not used",
        "the log says: " + sh->first->text + "; NCCL then reduces on the GPUs over the network (ring or tree)",
        "check the SHARP aggregation manager (sharp_am) and its resource limits, the SHARP plugin "
        "(libnccl-net with SHARP), and NCCL_COLLNET_ENABLE=1",
        std::string(kEnvDocs) + ": NCCL_COLLNET_ENABLE");
  }

  // 5. A TCP network plugin on a node with RDMA devices.
  if (log.network && log.network->find("FastSocket") != std::string::npos && (nics_seen || first(log, ib_list))) {
    add("tcp-plugin-on-rdma", "WARN", 0, "NCCL uses the FastSocket plugin (TCP) on a node with RDMA devices",
        "FastSocket is Google Cloud's TCP transport; with InfiniBand or RoCE present, NCCL's IB transport or the "
        "IB plugin carries the data without the host's CPU",
        "remove libnccl-net-fastsocket from the library path (or NCCL_NET_PLUGIN), or set NCCL_NET=IB",
        std::string(kEnvDocs) + ": NCCL_NET, NCCL_NET_PLUGIN; google/nccl-fastsocket README");
  }

  // 6. GPUDirect RDMA off, with NCCL's own reason.
  static const std::regex gdr_off(R"(GPU Direct RDMA Disabled for HCA (\d+) '([^']+)'(?: \(([^)]+)\))?)");
  if (const auto g = first(log, gdr_off)) {
    add("gdrdma-disabled", "WARN", g->first->line, "GPUDirect RDMA is off for " + g->second[2].str(),
        "NCCL stages the network's data through host memory" +
            (g->second[3].matched ? std::string(" (NCCL says: ") + g->second[3].str() + ")" : std::string()),
        "load nvidia-peermem (or use DMA-BUF: a recent driver and kernel); check NCCL_NET_GDR_LEVEL and that the NIC "
        "and the GPU share a PCIe switch",
        std::string(kEnvDocs) + ": NCCL_NET_GDR_LEVEL, NCCL_DMABUF_ENABLE; NVIDIA/nccl#897, NVIDIA/nccl#1676");
  }

  // 7. P2P or SHM turned off by the environment; a topology file overriding discovery.
  static const std::regex p2p_off(R"((NCCL_P2P_DISABLE|NCCL_SHM_DISABLE) set by environment to [1-9])");
  if (const auto d = first(log, p2p_off)) {
    add("transport-disabled", "WARN", d->first->line, d->second[1].str() + " is set",
        "NCCL cannot use that transport inside a node: GPU pairs go through host memory or the network",
        "unset it (it is often left from debugging an ACS or IOMMU problem: fix that instead)",
        std::string(kEnvDocs) + ": NCCL_P2P_DISABLE, NCCL_SHM_DISABLE; " + kTroubleshooting + ": PCI ACS; NVIDIA/nccl#2079");
  }
  static const std::regex topo_file(R"(NCCL_TOPO_FILE set by environment to (\S+))");
  if (const auto f = first(log, topo_file)) {
    add("topology-file", "WARN", f->first->line, "NCCL's topology comes from a file: " + f->second[1].str(),
        "NCCL does not discover the node: a file from another machine type makes wrong rings and paths",
        "use the file written for this exact machine type, or unset NCCL_TOPO_FILE",
        std::string(kEnvDocs) + ": NCCL_TOPO_FILE; NVIDIA/nccl#1008, NVIDIA/nccl-tests#86");
  }

  // 8. Failures: no interface to bootstrap on, a refused connection, out of memory.
  static const std::regex no_interface(R"(Bootstrap : no socket interface found|no socket interface found)");
  if (const auto b = first(log, no_interface, true)) {
    add("bootstrap-interface", "FAIL", b->first->line, "NCCL found no network interface to bootstrap on",
        "NCCL_SOCKET_IFNAME names an interface this node does not have, or none is up",
        "set NCCL_SOCKET_IFNAME to an interface every node has (ip -br link), e.g. NCCL_SOCKET_IFNAME=ib0 or =eth",
        std::string(kEnvDocs) + ": NCCL_SOCKET_IFNAME; NVIDIA/nccl#210, NVIDIA/nccl#1837");
  }
  static const std::regex connect_failed(R"(Connect to (\S+) failed\s*:\s*(.+)$)");
  if (const auto c = first(log, connect_failed, true)) {
    add("connection-failed", "FAIL", c->first->line, c->first->host + " could not connect to " + c->second[1].str(),
        c->second[2].str() + ": the peer's address is not reachable on the interface NCCL chose, or a firewall drops it",
        "choose an interface both reach (NCCL_SOCKET_IFNAME); check the route and the firewall between the nodes",
        std::string(kEnvDocs) + ": NCCL_SOCKET_IFNAME; " + kTroubleshooting + "; NVIDIA/nccl#286, NVIDIA/nccl-tests#15");
  }
  static const std::regex oom(R"(out of memory|Failed to CUDA calloc|cudaMalloc.*failed)", std::regex::icase);
  if (const auto o = first(log, oom, true)) {
    add("out-of-memory", "FAIL", o->first->line, "NCCL could not allocate GPU memory on " + o->first->host,
        "the log says: " + o->first->text, "leave room for NCCL's buffers (NCCL_BUFFSIZE, fewer channels) or the job's",
        std::string(kEnvDocs) + ": NCCL_BUFFSIZE");
  }

  // 9. Ranks on different NCCL versions.
  static const std::regex version(R"(^NCCL version (\S+))");
  std::map<std::string, std::pair<std::string, long>> versions;  // version -> (host, line)
  for (const auto& m : log.messages) {
    std::smatch v;
    if (std::regex_search(m.text, v, version)) versions.emplace(v[1].str(), std::make_pair(m.host, m.line));
  }
  if (versions.size() > 1) {
    std::string seen;
    for (const auto& [v, where] : versions) seen += (seen.empty() ? "" : ", ") + v + " on " + where.first;
    add("version-mismatch", "FAIL", versions.begin()->second.second, "the ranks run different NCCL versions: " + seen,
        "NCCL's protocol between ranks is only defined for one version: hangs or wrong results",
        "install one NCCL everywhere (the same container image, the same LD_LIBRARY_PATH)",
        std::string(kTroubleshooting) + "; NVIDIA/nccl#286");
  }

  // 10. Inside a node, SHM where P2P should work: the topology puts the pair on NVLink or one PCIe
  // switch, or the node's other pairs use P2P (ACS or an IOMMU sending P2P through the root complex).
  {
    std::set<std::string> hosts_with_p2p;
    for (const auto& c : log.channels)
      if (c.transport == NcclTransport::kP2p) hosts_with_p2p.insert(c.host);
    for (const auto& c : log.channels) {
      if (c.transport != NcclTransport::kShm) continue;
      std::string why;
      if (const auto cell = gpu_pair_cell(topology, c)) {
        if (cell->kind == PathKind::kNvlink || cell->kind == PathKind::kPix || cell->kind == PathKind::kPxb)
          why = "GPU" + c.src_id + " and GPU" + c.dst_id + " are " + cell->text() + " (nvidia-smi topo -m)";
      } else if (hosts_with_p2p.count(c.host)) {
        why = "other GPU pairs on " + c.host + " use P2P";
      }
      if (why.empty()) continue;
      add("shm-instead-of-p2p", "WARN", c.line,
          "rank " + std::to_string(c.src_rank) + " -> " + std::to_string(c.dst_rank) + " on " + c.host +
              " goes through host memory (SHM) although " + why,
          "P2P between the two GPUs is off: NCCL_P2P_DISABLE or NCCL_P2P_LEVEL, or PCIe ACS / an IOMMU that "
          "redirects peer traffic through the CPU's root complex (NCCL then refuses P2P or finds it slow)",
          "unset NCCL_P2P_DISABLE and NCCL_P2P_LEVEL; disable ACS on the PCIe switches (setpci) and the IOMMU's "
          "translation for the GPUs (iommu=pt), as NCCL's troubleshooting guide says; check nvidia-smi topo -p2p r",
          std::string(kTroubleshooting) + ": PCI Access Control Services (ACS); " + kEnvDocs + ": NCCL_P2P_LEVEL; NVIDIA/nccl#304, NVIDIA/nccl#606");
      break;  // one entry: every such channel says the same
    }
  }

  // 11. InfiniBand without GPUDirect RDMA although the NIC sits on the GPU's PCIe switch.
  if (topology != nullptr) {
    for (const auto& c : log.channels) {
      if (c.transport != NcclTransport::kNetIb || c.gdrdma || c.net_device < 0 ||
          c.net_device >= static_cast<int>(log.ib_devices.size()))
        continue;
      const std::string hca = log.ib_devices[static_cast<std::size_t>(c.net_device)];
      const std::string hca_name = hca.substr(0, hca.find(':'));
      std::optional<PathKind> kind;
      for (std::size_t n : topology->nic_indices())
        for (std::size_t g : topology->gpu_indices())
          if (topology->devices[n].name == hca_name && topology->devices[g].index == c.device)
            kind = topology->at(g, n).kind;
      if (!kind || (*kind != PathKind::kPix && *kind != PathKind::kPxb)) continue;
      add("gdrdma-unused", "WARN", c.line,
          "GPU" + std::to_string(c.device) + " on " + c.host + " sends over " + hca_name + " without GPUDirect RDMA",
          hca_name + " is " + std::string(to_string(*kind)) + " to GPU" + std::to_string(c.device) +
              " (nvidia-smi topo -m), where NCCL uses GPUDirect RDMA by default: the channel says NET/IB/" +
              std::to_string(c.net_device) + " without /GDRDMA, so the data is staged through host memory",
          "load nvidia-peermem (lsmod | grep peermem) or use DMA-BUF; check NCCL_NET_GDR_LEVEL is not lowered",
          std::string(kEnvDocs) + ": NCCL_NET_GDR_LEVEL, NCCL_NET_GDR_READ; NVIDIA/nccl#897");
      break;
    }
  }

  // 12. P2P that NCCL itself refused on connected GPUs, or a P2P level that forbids it.
  static const std::regex p2p_refused(R"(P2P is disabled between connected GPUs (\d+) and (\d+))");
  if (const auto r = first(log, p2p_refused)) {
    add("p2p-disabled-by-hardware", "FAIL", r->first->line,
        "NCCL found P2P disabled between connected GPUs " + r->second[1].str() + " and " + r->second[2].str() +
            " on " + r->first->host,
        "CUDA reports no peer access between GPUs the topology connects: NCCL says this is probably a hardware "
        "issue, and stops unless NCCL_IGNORE_DISABLED_P2P=1",
        "check nvidia-smi topo -p2p r (and the fabric manager on NVSwitch systems: systemctl status "
        "nvidia-fabricmanager), ACS and the IOMMU; do not hide it with NCCL_IGNORE_DISABLED_P2P",
        std::string(kTroubleshooting) + "; NCCL src/transport/p2p.cc; NVIDIA/nccl#257, NVIDIA/nccl#2079");
  }
  static const std::regex p2p_level(R"(NCCL_P2P_LEVEL set by environment to (LOC|0)\b)");
  if (const auto l = first(log, p2p_level)) {
    add("p2p-level", "WARN", l->first->line, "NCCL_P2P_LEVEL=" + l->second[1].str() + ": P2P is never used",
        "NCCL_P2P_LEVEL says how far apart two GPUs may be for P2P (NVL: NVLink only, PIX: one PCIe switch, PXB: "
        "several switches, PHB: the CPU's root complex, SYS: across sockets); LOC forbids it everywhere, so every "
        "pair inside the node goes through host memory",
        "unset NCCL_P2P_LEVEL (NCCL picks by the topology) or set the level the node's wiring allows",
        std::string(kEnvDocs) + ": NCCL_P2P_LEVEL");
  }

  // 13. NVLS (NVLink SHARP) off on NVSwitch GPUs that could use it.
  static const std::regex nvls_env(R"(NCCL_NVLS_ENABLE set by environment to 0)");
  static const std::regex nvls_missing(R"(NVLS multicast support is not available)");
  const auto nvls_off = first(log, nvls_env);
  const auto nvls_none = nvswitch_with_nvls(topology) ? first(log, nvls_missing) : std::nullopt;
  if (nvls_off || nvls_none) {
    const auto& at = nvls_off ? *nvls_off : *nvls_none;
    add("nvls-unavailable", "WARN", at.first->line, "NVLS (NVLink SHARP) is not used on " + at.first->host,
        nvls_off ? std::string("NCCL_NVLS_ENABLE=0 turns it off")
                 : std::string("the GPUs sit on NVSwitches (every pair NV18) but NCCL says multicast is not available: "
                               "the fabric manager or the driver's multicast (IMEX on NVL72) is not up"),
        "without NVLS an 8-GPU all_reduce reaches the ring's busbw, not NVLS's (about 370 against 480 GB/s on H100: "
        "NVIDIA/nccl-tests#212); unset NCCL_NVLS_ENABLE, check nvidia-fabricmanager and the driver",
        std::string(kEnvDocs) + ": NCCL_NVLS_ENABLE; NVIDIA/nccl-tests#212");
  }

  // 14. A network plugin for another fabric than the node's NICs; NICs NCCL was told to leave out.
  if (topology != nullptr && log.network) {
    bool mellanox = false;
    for (std::size_t n : topology->nic_indices()) mellanox = mellanox || topology->devices[n].name.starts_with("mlx5");
    static const std::regex network_line(R"(^Using network )");
    const auto chosen = first(log, network_line);
    if (mellanox && (log.network->find("Libfabric") != std::string::npos || log.network->find("OFI") != std::string::npos)) {
      add("plugin-vs-nics", "WARN", chosen ? chosen->first->line : 0,
          "NCCL uses the " + *log.network + " plugin on a node whose NICs are Mellanox/NVIDIA (mlx5)",
          "the OFI plugin is AWS EFA's; on mlx5 HCAs it goes through libfabric's verbs provider, slower than NCCL's "
          "own IB transport",
          "remove the aws-ofi-nccl plugin from the library path (or NCCL_NET_PLUGIN), or set NCCL_NET=IB",
          std::string(kEnvDocs) + ": NCCL_NET, NCCL_NET_PLUGIN");
    }
  }
  static const std::regex hca_env(R"(NCCL_IB_HCA set by environment to (\S+))");
  if (const auto h = first(log, hca_env); h && topology != nullptr && !log.ib_devices.empty() &&
                                          log.ib_devices.size() < topology->nic_indices().size()) {
    add("ib-hca-excludes-ports", "WARN", h->first->line,
        "NCCL uses " + std::to_string(log.ib_devices.size()) + " of the node's " +
            std::to_string(topology->nic_indices().size()) + " network devices (NCCL_IB_HCA=" + h->second[1].str() + ")",
        "the GPUs whose NIC is left out send over another GPU's NIC: the node gets a fraction of its bandwidth",
        "list every fabric port in NCCL_IB_HCA, or unset it; exclude only ports off the fabric ('^mlx5_bond_0')",
        std::string(kEnvDocs) + ": NCCL_IB_HCA; NVIDIA/nccl#236, NVIDIA/nccl-tests#150");
  }
  // The catalogue's entries (suites/nccl-warnings.csv): one line's signature each, the first line
  // that matches. An entry coded above with the same id stays as coded.
  for (const NcclWarningEntry& entry : nccl_warning_catalogue()) {
    if (std::any_of(out.begin(), out.end(), [&](const NcclDiagnosis& d) { return d.id == entry.id; })) continue;
    for (const auto& m : log.messages) {
      const std::string said = m.location.empty() ? m.text : m.location + " " + m.text;
      std::smatch found;
      if (!std::regex_search(said, found, entry.signature)) continue;
      add(entry.id, entry.verdict, m.line, expand_groups(entry.what, found) + (m.host.empty() ? "" : " (" + m.host + ")"),
          entry.why, entry.fix, entry.source);
      break;
    }
  }
  // The causes first: a FAIL before a WARN (a stopgap setting such as NCCL_SHM_DISABLE is a WARN
  // beside the failure that explains the job), each in the order of the log.
  std::stable_sort(out.begin(), out.end(), [](const NcclDiagnosis& a, const NcclDiagnosis& b) {
    return a.verdict == "FAIL" && b.verdict != "FAIL";
  });
  if (network_unused(log)) {
    // One host whose channels are all P2P or SHM (or NCCL's `nNodes 1`): whatever NCCL said of its
    // network (Socket chosen, IB disabled, no GPUDirect), no byte of this job crossed it.
    static const std::vector<std::string_view> network_only = {
        "socket-fallback", "mixed-link-layers", "collnet-unavailable", "tcp-plugin-on-rdma", "gdrdma-disabled",
        "gdrdma-unused",   "plugin-vs-nics",    "ib-hca-excludes-ports"};
    std::erase_if(out, [](const NcclDiagnosis& d) {
      return std::find(network_only.begin(), network_only.end(), d.id) != network_only.end();
    });
  }
  return out;
}

bool network_unused(const NcclLog& log) {
  static const std::regex nodes(R"(\bnNodes (\d+))");
  for (const auto& m : log.messages) {
    std::smatch n;
    if (std::regex_search(m.text, n, nodes)) return n[1].str() == "1";  // NCCL 2.19 on say it
  }
  if (log.channels.empty()) return false;  // nothing shows where the data went
  std::string host;
  for (const auto& c : log.channels) {
    if (c.transport != NcclTransport::kP2p && c.transport != NcclTransport::kShm) return false;
    if (!c.host.empty() && !host.empty() && c.host != host) return false;
    if (!c.host.empty()) host = c.host;
  }
  for (const auto& m : log.messages)
    if (!m.host.empty() && !host.empty() && m.host != host) return false;  // another node's ranks
  return true;
}

}  // namespace wb
