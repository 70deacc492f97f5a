#include "topology/nccl_log.h"

#include <charconv>
#include <map>
#include <regex>
#include <set>

#include "harness/errors.h"
#include "topology/text_input.h"

namespace wb {
namespace {

int to_int(const std::string& text) {
  int value = -1;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

NcclTransport transport_of(const std::string& via, bool& gdrdma, int& net_device) {
  gdrdma = via.find("/GDRDMA") != std::string::npos;
  // NET/IB/0, NET/IBext/0, NET/IBext_v8/0 (the IB plugin), NET/Socket/1
  static const std::regex net(R"(^NET/([A-Za-z][A-Za-z0-9_]*)/(\d+))");
  std::smatch m;
  if (via.starts_with("P2P")) return NcclTransport::kP2p;
  if (via.starts_with("SHM") || via.find("shared memory") != std::string::npos) return NcclTransport::kShm;
  if (std::regex_search(via, m, net)) {
    net_device = to_int(m[2]);
    if (m[1].str().starts_with("IB")) return NcclTransport::kNetIb;
    if (m[1] == "Socket") return NcclTransport::kNetSocket;
  }
  return NcclTransport::kNetOther;
}

}  // namespace

std::string_view to_string(NcclTransport transport) {
  switch (transport) {
    case NcclTransport::kP2p: return "P2P";
    case NcclTransport::kShm: return "SHM";
    case NcclTransport::kNetIb: return "NET/IB";
    case NcclTransport::kNetSocket: return "NET/Socket";
    case NcclTransport::kNetOther: return "NET";
  }
  return "NET";
}

// The matrix cell between the two GPUs of a channel line, when the topology knows both (the new
// format's brackets hold CUDA device indices; the old one's hold bus ids, which it cannot map).
std::optional<TopoCell> gpu_pair_cell(const TopoMatrix* topology, const NcclChannelLine& c) {
  if (topology == nullptr || c.old_format) return std::nullopt;
  const int a = to_int(c.src_id), b = to_int(c.dst_id);
  std::optional<std::size_t> ga, gb;
  for (std::size_t g : topology->gpu_indices()) {
    if (topology->devices[g].index == a) ga = g;
    if (topology->devices[g].index == b) gb = g;
  }
  if (!ga || !gb) return std::nullopt;
  return topology->at(*ga, *gb);
}

NcclLog parse_nccl_log(std::string_view text, const std::string& source) {
  require_text(text, source);
  // [anything: a launcher's tag, a timestamp] host:pid:tid [dev] [file.cc:line] NCCL INFO|WARN message.
  // NCCL's WARN lines carry the source location before "NCCL WARN" (transport/nvls.cc:254).
  static const std::regex prefix(
      R"((?:^|[\s>\]:])([^:\s\[\]<>]+):\d+:\d+ \[(\d+)\] (?:(\S+:\d+) )?NCCL (INFO|WARN) (.*)$)");
  // Channel 00/0 : 2[2] -> 3[3] via X   |   Channel 00 : 3[3] -> 4[4] via X   |   Ring 00 : 3[3] -> 2[2] via X
  static const std::regex channel(
      R"(^(Channel|Ring) (\d+)(?:/\d+)? : (\d+)\[([0-9a-fA-Fx:.]+)\] -> (\d+)\[([0-9a-fA-Fx:.]+)\])"
      R"((?: \[(?:send|receive)\])? via (.+?)\s*$)");
  static const std::regex ring(R"(^Channel (\d+)/(\d+) :((?:\s+\d+)+)\s*$)");
  static const std::regex trees(R"(^Trees((?: \[\d+\] \S+)+)\s*$)");
  static const std::regex network(R"(^Using network (.+?)\s*$)");
  static const std::regex ib_list(R"(^NET/IB\w* : Using (.*?)(?:;|$))");  // NET/IB, NET/IBext_v8
  static const std::regex bracketed(R"(\[\d+\]\s*(\S+))");

  NcclLog log;
  const auto lines = split_lines(strip_ansi(text));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::smatch p, m;
    // std::regex recurses per character: a huge line could exhaust the stack. NCCL's are short.
    constexpr std::size_t kLongestLine = 4096;
    if (lines[i].size() > kLongestLine) {
      if (lines[i].find("NCCL INFO") != std::string::npos)
        log.problems.push_back(InputError(source, static_cast<long>(i) + 1, "line too long to be NCCL's; skipped").what());
      continue;
    }
    if (!std::regex_search(lines[i], p, prefix)) continue;  // not an NCCL line
    const std::string message = p[5];
    const long line = static_cast<long>(i) + 1;
    log.messages.push_back({line, p[1], p[4] == "WARN", message, p[3]});
    if (p[4] == "WARN") continue;
    if (std::regex_match(message, m, channel)) {
      NcclChannelLine c;
      c.line = line;
      c.host = p[1];
      c.device = to_int(p[2]);
      c.old_format = m[1] == "Ring";
      c.channel = to_int(m[2]);
      c.src_rank = to_int(m[3]);
      c.src_id = m[4];
      c.dst_rank = to_int(m[5]);
      c.dst_id = m[6];
      c.via = m[7];
      c.transport = transport_of(c.via, c.gdrdma, c.net_device);
      log.channels.push_back(c);
    } else if (std::regex_match(message, m, ring)) {
      std::vector<int> order;
      for (const auto& token : split_whitespace(m[3].str())) order.push_back(to_int(token));
      log.rings.push_back(order);
    } else if (std::regex_match(message, m, trees)) {
      const std::string all = m[1];
      for (std::sregex_iterator it(all.begin(), all.end(), bracketed), end; it != end; ++it)
        log.trees.push_back((*it)[1]);
    } else if (std::regex_search(message, m, network)) {
      log.network = m[1];
    } else if (std::regex_search(message, m, ib_list)) {
      const std::string all = m[1];
      for (std::sregex_iterator it(all.begin(), all.end(), bracketed), end; it != end; ++it)
        log.ib_devices.push_back((*it)[1]);
    } else if ((message.starts_with("Channel") || message.starts_with("Ring")) &&
               message.find(" via ") != std::string::npos) {
      log.problems.push_back(InputError(source, line, "channel line not understood: " + message).what());
    }
  }
  return log;
}

NcclLog read_nccl_log(const std::string& path) { return parse_nccl_log(read_text_file(path), path); }

}  // namespace wb
