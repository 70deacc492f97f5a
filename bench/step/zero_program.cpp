// DeepSpeed ZeRO, stages 1 to 3, as DeepSpeed ships them and as the ZeRO paper describes them.
//
// Stages 1 and 2 (DeepSpeed): gradients go into buckets of reduce_bucket_size elements (a bucket
// is reduced before a tensor would overflow it); each bucket is all_reduced and each rank keeps
// its slice; after the optimizer step one all_gather of the flat parameters, in buckets of
// allgather_bucket_size. Stage 1 reduces everything after backward; stage 2 reduces each bucket
// as it fills, with overlap_comm off (its default) on the compute stream, so compute waits for it;
// with overlap_comm on, bucket k's reduction overlaps compute but compute waits for it once
// bucket k+1 is launched. The paper's stages 1 and 2 reduce_scatter the buckets instead.
//
// Stage 3 (DeepSpeed, overlap_comm on): modules are fetched in trace order: before a module runs,
// an all_gather of its missing parameters, then one coalesced prefetch of the next modules up to
// stage3_prefetch_bucket_size elements (never more than stage3_max_live_parameters gathered).
// After forward a module is released unless it is used again within stage3_max_reuse_distance
// elements; tensors under stage3_param_persistence_threshold are never partitioned. Backward
// re-gathers what was released and reduce_scatters gradient buckets. The paper's stage 3 releases
// every module after use and partitions every tensor: all_gather forward and backward.
#include <functional>
#include <map>
#include <set>

#include "step/strategy.h"

namespace wb::step {
namespace {

int stage_of(Strategy s) {
  switch (s) {
    case Strategy::kZero1:
    case Strategy::kZero1Paper: return 1;
    case Strategy::kZero2:
    case Strategy::kZero2Paper: return 2;
    default: return 3;
  }
}

bool paper(Strategy s) {
  return s == Strategy::kZero1Paper || s == Strategy::kZero2Paper || s == Strategy::kZero3Paper;
}

// Gradient buckets: flushed before a tensor would overflow the cap; each flush issues a
// reduction. `launch` issues it and returns the operation; the caller decides the dependencies.
class GradientBuckets {
 public:
  GradientBuckets(std::uint64_t cap, std::function<int(std::uint64_t elements, int ready, int index)> launch)
      : cap_(cap), launch_(std::move(launch)) {}
  void add(std::uint64_t elements, int ready) {
    if (elements_ > 0 && elements_ + elements > cap_) flush();
    elements_ += elements;
    ready_ = ready;
  }
  void flush() {
    if (elements_ == 0) return;
    reductions_.push_back(launch_(elements_, ready_, static_cast<int>(reductions_.size())));
    elements_ = 0;
  }
  const std::vector<int>& reductions() const { return reductions_; }

 private:
  std::uint64_t cap_;
  std::function<int(std::uint64_t, int, int)> launch_;
  std::uint64_t elements_ = 0;
  int ready_ = -1;
  std::vector<int> reductions_;
};

// One access of a module (a parameter tensor and the compute that uses it) in the step's trace.
struct Access {
  const Tensor* tensor;
  bool forward;
  double compute_us;
  bool layer = false;  // recomputed in backward under activation checkpointing
};

// Forward then backward, as ZeRO-3's trace records modules; the output head (or, tied, the
// embedding again) is the last forward module.
std::vector<Access> module_trace(const Model& model, const StepSettings& s) {
  std::vector<Access> fwd;
  const Unit& root = model.units.front();
  const Tensor* embedding = &root.tensors.front();
  const Tensor* output = nullptr;
  const Tensor* final_norm = nullptr;
  for (const Tensor& t : root.tensors) {
    if (t.name == "output") output = &t;
    else if (t.name == "final_norm") final_norm = &t;
    else fwd.push_back({&t, true, 0.0});  // embedding lookups: no matmul
  }
  for (std::size_t u = 1; u < model.units.size(); ++u)
    for (const Tensor& t : model.units[u].tensors) fwd.push_back({&t, true, forward_us(t.elements, s), true});
  const std::uint64_t head = model.shape.vocab * model.shape.hidden;
  fwd.push_back({final_norm, true, 0.0});
  fwd.push_back({output ? output : embedding, true, forward_us(head, s)});
  std::vector<Access> trace = fwd;
  for (auto a = fwd.rbegin(); a != fwd.rend(); ++a)
    trace.push_back({a->tensor, false, backward_us(a->compute_us, s, a->layer), a->layer});
  return trace;
}

void add_stage3(Program& p, const Model& model, const StepSettings& s, bool as_paper, int ranks) {
  const std::vector<Access> trace = module_trace(model, s);
  const std::uint64_t persistence = as_paper ? 0 : s.persistence_threshold;
  auto partitioned = [&](const Tensor* t) { return t->elements >= persistence; };
  const bool overlap = s.overlap_comm.value_or(true);

  std::map<const Tensor*, int> gathered_by;  // available (or in flight): the all_gather that brings it
  std::uint64_t live = 0;
  auto gather = [&](const std::vector<const Tensor*>& tensors, const std::string& label) {
    std::uint64_t bytes = 0;
    for (const Tensor* t : tensors) bytes += padded(t->elements, ranks) * s.param_bytes;
    const int op = p.collective(CollOp::kAllGather, Group::kWorld, bytes, s.param_bytes, label);
    for (const Tensor* t : tensors) {
      gathered_by[t] = op;
      live += t->elements;
    }
  };

  std::vector<int> launched;      // reductions so far
  std::vector<int> pending_waits;  // what the next computation must wait for
  GradientBuckets buckets(s.reduce_bucket_elements, [&](std::uint64_t elements, int ready, int index) {
    const int op = p.collective(CollOp::kReduceScatter, Group::kWorld, padded(elements, ranks) * s.grad_bytes,
                                s.grad_bytes, "reduce_scatter bucket " + std::to_string(index), {ready});
    // Without overlap the reduction is on the compute stream: what follows waits for it. With
    // overlap, bucket k is waited for once bucket k+1 is launched (its buffer is reused).
    if (!overlap) pending_waits.push_back(op);
    else if (!launched.empty()) pending_waits.push_back(launched.back());
    launched.push_back(op);
    return op;
  });

  for (std::size_t i = 0; i < trace.size(); ++i) {
    const Access& a = trace[i];
    const Tensor* t = a.tensor;
    std::vector<int> needs;
    if (partitioned(t)) {
      if (!gathered_by.count(t)) gather({t}, "all_gather " + t->name + (a.forward ? "" : " (backward)"));
      // One coalesced prefetch of the modules that come next in the trace.
      std::vector<const Tensor*> prefetch;
      std::set<const Tensor*> chosen;
      std::uint64_t window = 0;
      for (std::size_t j = i + 1; j < trace.size() && window < s.prefetch_bucket_elements; ++j) {
        const Tensor* next = trace[j].tensor;
        if (!partitioned(next) || gathered_by.count(next) || chosen.count(next)) continue;
        if (live + window + next->elements > s.max_live_parameters) break;
        prefetch.push_back(next);
        chosen.insert(next);
        window += next->elements;
      }
      if (!prefetch.empty()) gather(prefetch, "all_gather prefetch of " + std::to_string(prefetch.size()) + " modules");
      needs.push_back(gathered_by.at(t));
    }
    needs.insert(needs.end(), pending_waits.begin(), pending_waits.end());
    pending_waits.clear();
    const int compute = p.compute(std::string(a.forward ? "fwd " : "bwd ") + t->name, a.compute_us, needs);
    if (!a.forward) buckets.add(t->elements, compute);
    // Release unless the next use of this module comes within max_reuse_distance elements.
    if (!partitioned(t)) continue;
    std::uint64_t distance = 0;
    bool reused = false;
    for (std::size_t j = i + 1; j < trace.size(); ++j) {
      if (trace[j].tensor == t) {
        reused = true;
        break;
      }
      distance += trace[j].tensor->elements;
    }
    const bool keep = reused && !as_paper && distance <= s.max_reuse_distance;
    if (!keep && gathered_by.count(t)) {
      gathered_by.erase(t);
      live -= t->elements;
    }
  }
  buckets.flush();
  std::vector<int> all = buckets.reductions();
  const std::uint64_t local = padded(model.parameters(), ranks) / static_cast<std::uint64_t>(ranks);
  p.compute("optimizer", optimizer_us(local, s), all);
}

}  // namespace

Program make_zero_program(const Model& model, Strategy strategy, const StepSettings& s) {
  Program p;
  p.strategy = strategy_name(strategy);
  p.ranks = s.ranks;
  p.group_sizes[static_cast<int>(Group::kWorld)] = s.ranks;
  const int stage = stage_of(strategy);
  const bool as_paper = paper(strategy);
  p.variant_note = as_paper ? "ZeRO paper (arXiv 1910.02054): reduce_scatter + all_gather"
                            : "as DeepSpeed ships it (stage_1_and_2.py / stage3.py defaults)";
  if (stage == 3) {
    add_stage3(p, model, s, as_paper, s.ranks);
    return p;
  }

  const std::uint64_t head = model.shape.vocab * model.shape.hidden;
  for (std::size_t u = 1; u < model.units.size(); ++u)
    p.compute("fwd " + model.units[u].name, forward_us(model.units[u].parameters(), s));
  p.compute("fwd head", forward_us(head, s));

  const bool overlap = s.overlap_comm.value_or(false);
  const CollOp reduction = as_paper ? CollOp::kReduceScatter : CollOp::kAllReduce;
  std::vector<int> pending_waits;  // what the next backward computation must wait for
  std::vector<int> launched;
  GradientBuckets buckets(s.reduce_bucket_elements, [&](std::uint64_t elements, int ready, int index) {
    const int op = p.collective(reduction, Group::kWorld, padded(elements, s.ranks) * s.grad_bytes, s.grad_bytes,
                                std::string(describe(reduction).name) + " bucket " + std::to_string(index), {ready});
    if (!overlap) pending_waits.push_back(op);
    else if (!launched.empty()) pending_waits.push_back(launched.back());
    launched.push_back(op);
    return op;
  });
  auto backward = [&](const std::string& label, double us) {
    std::vector<int> needs;
    if (stage == 2) needs = pending_waits;
    pending_waits.clear();
    return p.compute(label, us, needs);
  };

  // Gradients in the order backward produces them: stage 2 buckets each as it comes (after the
  // computation that produced it), stage 1 keeps them for once backward has finished.
  std::vector<std::uint64_t> after_backward;
  auto offer = [&](std::uint64_t elements, int produced_by) {
    if (stage == 2) buckets.add(elements, produced_by);
    else after_backward.push_back(elements);
  };
  auto is_head = [](const Tensor& t) { return t.name == "output" || t.name == "final_norm"; };
  const Unit& root = model.units.front();
  int ready = backward("bwd head", backward_us(forward_us(head, s), s, false));
  for (auto t = root.tensors.rbegin(); t != root.tensors.rend(); ++t)
    if (is_head(*t)) offer(t->elements, ready);
  for (std::size_t u = model.units.size() - 1; u >= 1; --u) {
    const Unit& unit = model.units[u];
    ready = backward("bwd " + unit.name, backward_us(forward_us(unit.parameters(), s), s, true));
    for (auto t = unit.tensors.rbegin(); t != unit.tensors.rend(); ++t) offer(t->elements, ready);
  }
  for (auto t = root.tensors.rbegin(); t != root.tensors.rend(); ++t)
    if (!is_head(*t)) offer(t->elements, ready);  // the embeddings' gradients come last
  for (std::uint64_t elements : after_backward) buckets.add(elements, ready);
  buckets.flush();

  const std::uint64_t local = padded(model.parameters(), s.ranks) / static_cast<std::uint64_t>(s.ranks);
  const int optimizer = p.compute("optimizer", optimizer_us(local, s), buckets.reductions());
  // The updated parameters, gathered back in buckets of allgather_bucket_size elements.
  std::uint64_t remaining = padded(model.parameters(), s.ranks);
  const std::uint64_t per_bucket = padded(s.allgather_bucket_elements, s.ranks);
  for (int index = 0; remaining > 0; ++index) {
    const std::uint64_t elements = std::min(remaining, per_bucket);
    p.collective(CollOp::kAllGather, Group::kWorld, elements * s.param_bytes, s.param_bytes,
                 "all_gather parameters " + std::to_string(index), {optimizer});
    remaining -= elements;
  }
  return p;
}

}  // namespace wb::step
