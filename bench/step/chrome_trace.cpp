#include "step/chrome_trace.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include "harness/errors.h"

namespace wb::step {

std::string trace_events(const Program& program, const Timeline& measured, const Timeline& predicted, int rank) {
  nlohmann::json events = nlohmann::json::array();
  for (int s = 0; s < kStreams; ++s)
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", rank}, {"tid", s}, {"args", {{"name", stream_name(s)}}}});
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", rank}, {"args", {{"name", "rank " + std::to_string(rank)}}}});
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const Op& op = program.ops[i];
    if (op.kind == OpKind::kHostWait) continue;
    nlohmann::json args = {{"predicted_start_us", predicted.ops[i].start_us},
                           {"predicted_us", predicted.ops[i].end_us - predicted.ops[i].start_us}};
    if (op.kind == OpKind::kCollective) {
      args["bytes"] = op.bytes;
      args["group"] = group_name(op.group);
    }
    events.push_back({{"ph", "X"},
                      {"name", op.label},
                      {"cat", op.kind == OpKind::kCompute ? "compute" : describe(op.collective).name},
                      {"pid", rank},
                      {"tid", stream_of(op)},
                      {"ts", measured.ops[i].start_us},
                      {"dur", measured.ops[i].end_us - measured.ops[i].start_us},
                      {"args", args}});
  }
  return events.dump();
}

void write_chrome_trace(const std::string& path, const std::vector<std::string>& rank_events) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& text : rank_events)
    for (auto& e : nlohmann::json::parse(text)) all.push_back(std::move(e));
  std::ofstream out(path);
  if (!out) throw CallError("cannot write the step trace " + path);
  out << nlohmann::json{{"traceEvents", all}, {"displayTimeUnit", "ms"}}.dump() << "\n";
}

}  // namespace wb::step
