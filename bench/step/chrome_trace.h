// One step of every rank as a Chrome trace (chrome://tracing, Perfetto: the JSON "traceEvents"
// format): a process per rank, a thread per stream, a complete ("X") event per operation, with
// the predicted start and duration in its arguments.
#pragma once

#include <string>
#include <vector>

#include "step/program.h"
#include "step/timeline.h"

namespace wb::step {

// This rank's events as a JSON array text (so ranks can send it as text to rank 0).
std::string trace_events(const Program& program, const Timeline& measured, const Timeline& predicted, int rank);
// Writes {"traceEvents": [...all ranks...], "displayTimeUnit": "ms"}.
void write_chrome_trace(const std::string& path, const std::vector<std::string>& rank_events);

}  // namespace wb::step
