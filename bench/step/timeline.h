// When each operation of a step ran (measured by an executor or predicted by the cost model),
// and what a step's time splits into: exposed communication = step time - compute busy time
// (docs/step-emulation.md, rule 2, as ASTRA-sim reports it).
#pragma once

#include <array>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "step/program.h"

namespace wb::step {

struct OpTiming {
  double start_us = 0, end_us = 0;
};

struct Timeline {
  std::vector<OpTiming> ops;  // per program operation (a host wait: when the host went on)
  double step_us = 0;         // from the start to the last operation's end
  double compute_us = 0;      // busy time of the compute stream
  double exposed_us() const { return step_us > compute_us ? step_us - compute_us : 0; }
};

// The collective and compute sizes a program has at `scale` (a CPU run shrinks the model): bytes
// rounded to whole elements, a multiple of the group size, at least one element per rank.
std::uint64_t scaled_bytes(const Op& op, int group_size, double scale);
double scaled_compute_us(const Op& op, double scale);

// A timeline from when each operation ran: the step ends with the last; compute is the compute
// stream's busy time.
Timeline timeline_of(const Program& program, std::vector<OpTiming> ops);

// Plays the program by its rules with the given durations: an operation starts when the host has
// issued it, its stream is free and everything in `after` has ended.
Timeline simulate(const Program& program, const std::function<double(const Op&)>& duration_us);

// Where a collective starts: right behind the collective before it on its communicator (it waited
// for that one, so ranks start it as each finishes the last: the skew between ranks overlaps, as
// in a sweep's back-to-back calls) or on an idle communicator (every rank enters it after other
// work: a lone call). The same call costs differently in the two (a 3.5 MB MPICH all_reduce on the
// 1 Gbit/s virtual cluster: 87 ms back to back, 111 ms alone after backward).
enum class CallContext { kQueued, kIsolated };
inline const char* context_name(CallContext c) { return c == CallContext::kQueued ? "queued" : "isolated"; }

// Which groups' collectives cross the network between nodes (a rank's NIC), by where the groups'
// ranks sit (ranks placed node by node, `ranks_per_node` each; step_groups.h): collectives of such
// groups that run at the same time share that NIC. All false: nothing shared (one node).
using SharedLink = std::array<bool, kGroups>;
SharedLink groups_crossing_nodes(const Program& program, int ranks_per_node, int nodes);

// Plays the program with each operation's duration alone; collectives of groups in `shared` that
// run at the same time share the link max-min fairly (flow-level: k of them each progress at 1/k of
// their own speed, as k equal flows on one bottleneck do), so each takes longer than alone.
Timeline simulate(const Program& program, const std::function<double(const Op&, CallContext)>& duration_us,
                  const SharedLink& shared = {});

// Plays the program by the same rules with each operation's own duration (index-aligned with
// program.ops): a run's measured durations replayed, as trace-driven models (Lumos) predict a step.
// What it leaves unexplained is the schedule's: stalls, late ranks, waits the rules do not have.
Timeline replay(const Program& program, const std::vector<double>& durations_us);

// Time during which at least one collective was running (the union over communication streams).
double communication_busy_us(const Program& program, const Timeline& timeline);

// Total time per collective kind ("all_gather", "reduce_scatter@shard") in a timeline.
std::map<std::string, double> collective_time_by_kind(const Program& program, const Timeline& timeline);

}  // namespace wb::step
