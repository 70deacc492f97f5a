#include "step/timeline.h"

#include <algorithm>
#include <cmath>

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

Timeline play(const Program& program, const std::function<double(std::size_t, CallContext)>& duration_us) {
  Timeline t;
  t.ops.resize(program.ops.size());
  double host = 0;
  double stream_free[kStreams] = {};
  bool stream_used[kStreams] = {};
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const Op& op = program.ops[i];
    if (op.kind == OpKind::kHostWait) {
      host = std::max(host, t.ops[static_cast<std::size_t>(op.waits_for)].end_us);
      t.ops[i] = {host, host};
      continue;
    }
    const int stream = stream_of(op);
    double ready = host;  // when it could start but for its stream
    for (int dep : op.after) ready = std::max(ready, t.ops[static_cast<std::size_t>(dep)].end_us);
    const double start = std::max(ready, stream_free[stream]);
    const bool queued = stream_used[stream] && stream_free[stream] >= ready;
    const double d = duration_us(i, queued ? CallContext::kQueued : CallContext::kIsolated);
    t.ops[i] = {start, start + d};
    stream_free[stream] = start + d;
    stream_used[stream] = true;
    t.step_us = std::max(t.step_us, start + d);
    if (op.kind == OpKind::kCompute) t.compute_us += d;
  }
  return t;
}

}  // namespace

Timeline simulate(const Program& program, const std::function<double(const Op&)>& duration_us) {
  return play(program, [&](std::size_t i, CallContext) { return duration_us(program.ops[i]); });
}

Timeline simulate(const Program& program, const std::function<double(const Op&, CallContext)>& duration_us) {
  return play(program, [&](std::size_t i, CallContext context) { return duration_us(program.ops[i], context); });
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
