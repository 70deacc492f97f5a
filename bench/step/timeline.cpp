#include "step/timeline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace wb::step {

std::uint64_t scaled_bytes(const Op& op, int group_size, double scale) {
  const auto element = static_cast<std::uint64_t>(op.element_bytes);
  const auto n = static_cast<std::uint64_t>(std::max(group_size, 1));
  auto elements = static_cast<std::uint64_t>(std::llround(static_cast<double>(op.bytes / element) * scale));
  elements = std::max<std::uint64_t>(elements, n);
  elements = (elements + n - 1) / n * n;
  return elements * element;
}

double scaled_compute_us(const Op& op, double scale) { return op.compute_us * scale; }

Timeline timeline_of(const Program& program, std::vector<OpTiming> ops) {
  Timeline t;
  t.ops = std::move(ops);
  for (std::size_t i = 0; i < t.ops.size(); ++i) {
    t.step_us = std::max(t.step_us, t.ops[i].end_us);
    if (program.ops[i].kind == OpKind::kCompute) t.compute_us += t.ops[i].end_us - t.ops[i].start_us;
  }
  return t;
}

namespace {

// An event-driven play: the host issues operations in program order (a host wait holds it until its
// operation ends); a stream starts its next operation once it is free, issued and past its `after`;
// time advances to the next end. Without sharing every operation runs at full speed, so each lasts
// its duration; with it, the collectives of shared groups in flight divide the link equally.
Timeline play(const Program& program, const std::function<double(std::size_t, CallContext)>& duration_us,
              const SharedLink& shared = {}) {
  const std::size_t n = program.ops.size();
  Timeline t;
  t.ops.resize(n);
  std::vector<char> ended(n, 0), started(n, 0);
  std::vector<double> issued(n, -1), remaining(n, 0);
  std::vector<std::size_t> queue[kStreams];
  std::size_t head[kStreams] = {};
  double stream_free[kStreams] = {};
  bool stream_used[kStreams] = {};
  int running_on_stream[kStreams];
  for (int& r : running_on_stream) r = -1;
  double now = 0, host = 0;
  std::size_t next = 0, done = 0;
  constexpr double kEpsilon = 1e-9;
  const auto is_shared = [&](std::size_t i) {
    const Op& op = program.ops[i];
    return op.kind == OpKind::kCollective && shared[static_cast<std::size_t>(op.group)];
  };
  while (done < n) {
    // The host issues what it can at this moment.
    while (next < n) {
      const Op& op = program.ops[next];
      if (op.kind == OpKind::kHostWait) {
        const auto w = static_cast<std::size_t>(op.waits_for);
        if (!ended[w]) break;
        host = std::max(host, t.ops[w].end_us);
        t.ops[next] = {host, host};
        ended[next] = started[next] = 1;
        ++done;
      } else {
        issued[next] = host;
        queue[stream_of(op)].push_back(next);
      }
      ++next;
    }
    // Each free stream starts its next operation if it may.
    for (int s = 0; s < kStreams; ++s) {
      if (running_on_stream[s] >= 0 || head[s] >= queue[s].size()) continue;
      const std::size_t i = queue[s][head[s]];
      const Op& op = program.ops[i];
      double ready = issued[i];  // when it could start but for its stream
      bool deps = true;
      for (int dep : op.after) {
        if (!ended[static_cast<std::size_t>(dep)]) deps = false;
        else ready = std::max(ready, t.ops[static_cast<std::size_t>(dep)].end_us);
      }
      if (!deps) continue;
      const bool queued = stream_used[s] && stream_free[s] >= ready;
      t.ops[i].start_us = std::max({ready, stream_free[s], now});
      remaining[i] = duration_us(i, queued ? CallContext::kQueued : CallContext::kIsolated);
      started[i] = 1;
      running_on_stream[s] = static_cast<int>(i);
      stream_used[s] = true;
      ++head[s];
    }
    // Advance to the next end at the rates the link's sharing gives.
    int sharing = 0;
    for (int r : running_on_stream)
      if (r >= 0 && is_shared(static_cast<std::size_t>(r))) ++sharing;
    double step = -1;
    for (int r : running_on_stream) {
      if (r < 0) continue;
      const double rate = is_shared(static_cast<std::size_t>(r)) && sharing > 1 ? 1.0 / sharing : 1.0;
      const double left = remaining[static_cast<std::size_t>(r)] / rate;
      if (step < 0 || left < step) step = left;
    }
    if (step < 0) {
      if (next < n) throw std::logic_error("step program: the host waits for an operation that never runs");
      break;  // nothing runs and nothing is left to issue
    }
    now += step;
    for (int s = 0; s < kStreams; ++s) {
      const int r = running_on_stream[s];
      if (r < 0) continue;
      const auto i = static_cast<std::size_t>(r);
      const double rate = is_shared(i) && sharing > 1 ? 1.0 / sharing : 1.0;
      remaining[i] -= step * rate;
      if (remaining[i] > kEpsilon * std::max(1.0, now)) continue;
      t.ops[i].end_us = now;
      ended[i] = 1;
      ++done;
      running_on_stream[s] = -1;
      stream_free[s] = now;
      t.step_us = std::max(t.step_us, now);
      if (program.ops[i].kind == OpKind::kCompute) t.compute_us += now - t.ops[i].start_us;
    }
  }
  return t;
}

}  // namespace

Timeline simulate(const Program& program, const std::function<double(const Op&)>& duration_us) {
  return play(program, [&](std::size_t i, CallContext) { return duration_us(program.ops[i]); });
}

Timeline simulate(const Program& program, const std::function<double(const Op&, CallContext)>& duration_us,
                  const SharedLink& shared) {
  return play(program, [&](std::size_t i, CallContext context) { return duration_us(program.ops[i], context); }, shared);
}

SharedLink groups_crossing_nodes(const Program& program, int ranks_per_node, int nodes) {
  SharedLink crossing{};
  if (nodes <= 1) return crossing;
  const int per_node = std::max(1, ranks_per_node);
  const int shard = program.group_sizes[static_cast<int>(Group::kShard)];
  crossing[static_cast<int>(Group::kWorld)] = program.group_sizes[static_cast<int>(Group::kWorld)] > 1;
  // Consecutive ranks: inside a node only when a node holds whole shard groups.
  crossing[static_cast<int>(Group::kShard)] = shard > 1 && (shard > per_node || per_node % shard != 0);
  // One rank of each shard group: they span the nodes.
  crossing[static_cast<int>(Group::kReplicate)] = program.group_sizes[static_cast<int>(Group::kReplicate)] > 1;
  return crossing;
}

Timeline replay(const Program& program, const std::vector<double>& durations_us) {
  return play(program, [&](std::size_t i, CallContext) { return durations_us.at(i); });
}

double communication_busy_us(const Program& program, const Timeline& timeline) {
  std::vector<std::pair<double, double>> spans;
  for (std::size_t i = 0; i < program.ops.size(); ++i)
    if (program.ops[i].kind == OpKind::kCollective) spans.emplace_back(timeline.ops[i].start_us, timeline.ops[i].end_us);
  std::sort(spans.begin(), spans.end());
  double busy = 0, covered_to = -1e300;
  for (const auto& [start, end] : spans) {
    const double from = std::max(start, covered_to);
    if (end > from) busy += end - from;
    covered_to = std::max(covered_to, end);
  }
  return busy;
}

std::map<std::string, double> collective_time_by_kind(const Program& program, const Timeline& timeline) {
  std::map<std::string, double> total;
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const Op& op = program.ops[i];
    if (op.kind != OpKind::kCollective) continue;
    std::string key = describe(op.collective).name;
    if (op.group != Group::kWorld) key += std::string("@") + group_name(op.group);
    total[key] += timeline.ops[i].end_us - timeline.ops[i].start_us;
  }
  return total;
}

}  // namespace wb::step
