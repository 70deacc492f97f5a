// How the reporter judges a row, declared by the binary that measures the case (results.csv's
// `judged` column, results schema 3; the words are schema/judgements.csv's). The reporter reads the
// declaration and branches on no bench name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "schema/judgements.h"

namespace wb {

struct Judgement {
  std::string_view metric;  // a results column: busbw_GBps, algbw_GBps, time_us
  JudgedAt at;
  JudgedAgainst against;
};

// METRIC@AT:AGAINST, space-separated.
std::string judged_text(const std::vector<Judgement>& judgements);

// The common declarations. A case that moves bytes: its bandwidth at the sweep's largest size
// against the link's ceiling (a collective's busbw, other transfers' algbw). One that moves none
// (a 0 B point, a latency-only case): its time at the smallest size, against its siblings.
Judgement bandwidth_against_ceiling(std::string_view metric = "algbw_GBps");
Judgement time_against_siblings();
// A transfer whose rate the link does not bound (a pageable copy runs through the driver's CPU
// staging copy; a bidirectional host copy is bound by the host's root complex): its bandwidth at the
// largest size against the same measurement on the node's other GPUs, never a link's ceiling.
Judgement bandwidth_against_siblings(std::string_view metric = "algbw_GBps");
// A ping-pong of at most kSmallMessageBytes: its half round trip against the typical latency of
// its link class (as well as its bandwidth, where it moves bytes).
inline constexpr unsigned kSmallMessageBytes = 64;
Judgement latency_against_typical();

// A data-moving case's judgement as above: bandwidth when bytes_per_op > 0, else the time.
std::string transfer_judged(double bytes_per_op, std::string_view bandwidth_metric = "algbw_GBps");

// The words of a command line as a POSIX shell reads them back: "a b" -> 'a b' (Python's shlex.join).
std::string shell_join(const std::vector<std::string>& words);

}  // namespace wb
