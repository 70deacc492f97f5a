// FSDP (PyTorch FullyShardedDataParallel, FSDP1) with each decoder layer wrapped and the root
// holding the embeddings and the head. Per unit: all_gather before forward, again before backward
// (FULL_SHARD, HYBRID_SHARD; the root is not freed after forward, so it is not gathered again),
// reduce_scatter of its gradients after backward; HYBRID_SHARD adds an all_reduce of the
// gradient shard across replicas on its own communicator. Flat parameters are padded to a
// multiple of the shard count, as FSDP pads them.
//
// Issue order (what the host does, the streams run it as soon as they can):
// - forward: the all_gather of a unit right after the previous unit's compute is enqueued;
//   limit_all_gathers holds the host back before a gather while two frees are pending (below).
// - backward_prefetch PRE: the next unit's gather is issued before the current unit's gradient
//   computation, so it runs during it and queues ahead of the current reduce_scatter.
//   POST: after the current gradient computation (the post-backward hook), before its
//   reduce_scatter. None: in the next unit's own pre-backward hook, behind the reduce_scatter.
#include <deque>

#include "step/strategy.h"

namespace wb::step {

Program make_fsdp_program(const Model& model, Strategy strategy, const StepSettings& s) {
  Program p;
  p.strategy = strategy_name(strategy);
  p.ranks = s.ranks;
  const bool hybrid = strategy == Strategy::kFsdpHybrid;
  const bool regather = strategy != Strategy::kFsdpGradOp;  // SHARD_GRAD_OP keeps parameters after forward
  const int shards = hybrid ? s.shard_group : s.ranks;
  const Group shard_group = hybrid ? Group::kShard : Group::kWorld;
  p.group_sizes[static_cast<int>(Group::kWorld)] = s.ranks;
  p.group_sizes[static_cast<int>(Group::kShard)] = hybrid ? s.shard_group : 1;
  p.group_sizes[static_cast<int>(Group::kReplicate)] = hybrid ? s.ranks / s.shard_group : 1;
  p.variant_note = std::string("PyTorch FSDP1, layers wrapped, backward_prefetch ") + prefetch_name(s.backward_prefetch) +
                   (s.limit_all_gathers ? ", limit_all_gathers" : "");

  const ModelShape& shape = model.shape;
  const std::uint64_t head = shape.vocab * shape.hidden;
  const std::size_t layers = model.units.size() - 1;
  auto gather_bytes = [&](std::size_t u) { return padded(model.units[u].parameters(), shards) * s.param_bytes; };
  auto label = [&](const char* what, std::size_t u) { return std::string(what) + " " + model.units[u].name; };
  // limit_all_gathers, as FSDP1's rate limiter does it: each free of gathered parameters (after a
  // unit's forward; after its backward) queues the compute it follows; before a gather, if two are
  // queued, the host takes the oldest and waits for it. SHARD_GRAD_OP frees nothing after forward
  // and gathers nothing in backward, so it never waits.
  const bool limited = s.limit_all_gathers && regather;
  std::deque<int> frees;
  auto limit = [&] {
    if (!limited || frees.size() < static_cast<std::size_t>(s.max_inflight_all_gathers)) return;
    p.host_wait(frees.front());
    frees.pop_front();
  };

  // Forward.
  const int root_gather = p.collective(CollOp::kAllGather, shard_group, gather_bytes(0), s.param_bytes, label("all_gather", 0));
  std::vector<int> forward(model.units.size(), -1);
  for (std::size_t u = 1; u <= layers; ++u) {
    limit();
    const int gather = p.collective(CollOp::kAllGather, shard_group, gather_bytes(u), s.param_bytes, label("all_gather", u));
    forward[u] = p.compute(label("fwd", u), forward_us(model.units[u].parameters(), s), {gather, root_gather});
    frees.push_back(forward[u]);
  }
  p.compute("fwd head", forward_us(head, s), {root_gather});

  // Backward: the head (root), the layers from the last, then the root's reduce_scatter.
  std::vector<int> backward(model.units.size(), -1), backward_gather(model.units.size(), -1);
  auto issue_backward_gather = [&](std::size_t u, std::vector<int> after) {
    limit();
    backward_gather[u] = p.collective(CollOp::kAllGather, shard_group, gather_bytes(u), s.param_bytes,
                                      label("all_gather", u) + " (backward)", std::move(after));
  };
  if (regather && s.backward_prefetch == Prefetch::kPre) issue_backward_gather(layers, {});
  int last_compute = p.compute("bwd head", backward_us(forward_us(head, s), s, false));
  std::vector<int> reductions;
  auto reduce = [&](std::size_t u, int ready) {
    const std::uint64_t bytes = padded(model.units[u].parameters(), shards) * s.grad_bytes;
    const int rs = p.collective(CollOp::kReduceScatter, shard_group, bytes, s.grad_bytes, label("reduce_scatter", u), {ready});
    reductions.push_back(rs);
    if (hybrid && p.group_sizes[static_cast<int>(Group::kReplicate)] > 1)
      reductions.push_back(p.collective(CollOp::kAllReduce, Group::kReplicate, bytes / static_cast<std::uint64_t>(shards),
                                        s.grad_bytes, label("all_reduce", u) + " (replicas)", {rs}));
  };
  for (std::size_t u = layers; u >= 1; --u) {
    if (regather) {
      if (s.backward_prefetch == Prefetch::kNone || (s.backward_prefetch == Prefetch::kPost && u == layers))
        issue_backward_gather(u, {});
      if (s.backward_prefetch == Prefetch::kPre && u > 1) issue_backward_gather(u - 1, {});
    }
    std::vector<int> needs;
    if (regather) needs.push_back(backward_gather[u]);
    backward[u] = last_compute =
        p.compute(label("bwd", u), backward_us(forward_us(model.units[u].parameters(), s), s, true), needs);
    if (regather) frees.push_back(backward[u]);
    if (regather && s.backward_prefetch == Prefetch::kPost && u > 1) issue_backward_gather(u - 1, {last_compute});
    reduce(u, last_compute);
  }
  reduce(0, last_compute);  // the root's gradients are complete with the embedding's, after the first layer
  const std::uint64_t local = padded(model.parameters(), shards) / static_cast<std::uint64_t>(shards);
  p.compute("optimizer", optimizer_us(local, s), reductions);
  return p;
}

}  // namespace wb::step
