// One timed sample of a benchmark: a batch of operations run back to back. The harness calls
// prepare (untimed: fill send buffers, poison receive buffers), run (timed), verify (untimed).
// Every rank runs every batch, also ranks that are idle in it, so that all ranks agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

class TimedBatch {
 public:
  virtual ~TimedBatch() = default;
  // Operations one batch performs (a round trip counts two one-way messages).
  virtual std::uint64_t ops_per_batch() const = 0;
  // `sample` grows by one per call over the whole run, so each batch's data pattern differs.
  virtual void prepare(std::uint64_t sample) = 0;
  // Runs the batch. Returns the seconds this rank measured, or 0 when this rank's clock does not
  // define the result (an idle rank, the echoing side of a ping-pong).
  virtual double run() = 0;
  // Wrong elements this rank received in the last batch.
  virtual std::uint64_t verify(std::uint64_t sample) = 0;
  // False when the batch was told not to check its data: the row then says "not checked"
  // (an empty errors field), never "0 errors".
  virtual bool checks_data() const { return true; }

  // Checked runs after the timed batches, for operations whose timed repetitions cannot be
  // checked (an in-place all_reduce sums its own output again): each fills fresh inputs, poisons
  // the outputs, runs once and returns the wrong elements this rank found (nccl-tests' -c).
  virtual int check_runs() const { return 0; }
  virtual std::uint64_t check(std::uint64_t sample) {
    (void)sample;
    return 0;
  }

  // A batch that times several flows on one rank (an all-to-all: one per peer): the seconds of
  // each in the last run, in the order its case's flows name them (FlowInfo::clock_slot).
  virtual std::vector<double> flow_seconds() const { return {}; }

  // Called on every rank once the timed batches are done (it may talk to the other ranks): more
  // key=value details for the row's `extra` column, computed from what the batches saw.
  virtual std::string extra_after_run() { return {}; }
};

}  // namespace wb
