// Reader for NCCL_DEBUG=INFO logs (NCCL's INFO and WARN lines, with NCCL's own `host:pid:tid [dev]`
// prefix after mpirun --tag-output's `[1,0]<stdout>:` or srun -l's `0: `, among other output): the transport of every channel line (P2P over NVLink or PCIe,
// SHM, NET/IB with or without GPUDirect RDMA, NET/Socket), the network NCCL chose, its HCAs,
// rings and trees, in the new ("Channel 00/0 : 2[2] -> 3[3] via ...") and old ("Ring 00 : 3[3]
// -> 2[2] via ...", bus ids in brackets) formats. What is wrong in it: topology/nccl_diagnosis.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/nvidia_smi_topo.h"

namespace wb {

enum class NcclTransport { kP2p, kShm, kNetIb, kNetSocket, kNetOther };
std::string_view to_string(NcclTransport transport);  // P2P, SHM, NET/IB, NET/Socket, NET

struct NcclChannelLine {
  long line = 0;
  std::string host;
  int device = -1;        // the CUDA device in "[2]" before "NCCL INFO"
  int channel = -1;
  int src_rank = -1, dst_rank = -1;
  std::string src_id, dst_id;  // inside the brackets: a device index (new) or a bus id (old)
  NcclTransport transport = NcclTransport::kNetOther;
  std::string via;        // everything after "via": "P2P/direct pointer/read", "NET/IB/0/GDRDMA"
  bool gdrdma = false;
  int net_device = -1;    // n of NET/IB/<n>
  bool old_format = false;
};

// Every NCCL INFO or WARN line, for the diagnoses (topology/nccl_diagnosis.h).
struct NcclMessage {
  long line = 0;
  std::string host;
  bool warn = false;  // NCCL WARN
  std::string text;   // after "NCCL INFO " / "NCCL WARN "
  std::string location;  // NCCL's source location before it, where printed: "transport/nvls.cc:254"
};

struct NcclLog {
  std::vector<NcclMessage> messages;
  std::vector<NcclChannelLine> channels;
  std::vector<std::vector<int>> rings;       // rank order per channel, as rank 0 prints it
  std::vector<std::string> trees;            // "1/-1/-1->0->-1" per tree channel
  std::optional<std::string> network;        // "IB", "Socket", "AWS Libfabric", "IBext_v8"
  std::vector<std::string> ib_devices;       // "mlx5_0:1/IB", in NCCL's index order
  std::vector<std::string> problems;         // "log:7: channel line not understood: ..."
};

NcclLog parse_nccl_log(std::string_view text, const std::string& source);
NcclLog read_nccl_log(const std::string& path);

// The matrix cell between the two GPUs of a channel line, when the topology knows both (the new
// format's brackets hold CUDA device indices; the old one's hold bus ids, which it cannot map).
std::optional<TopoCell> gpu_pair_cell(const TopoMatrix* topology, const NcclChannelLine& c);

}  // namespace wb
