// DDP (PyTorch DistributedDataParallel): forward; backward from the output head to the embedding,
// gradients filling buckets in the order they become ready (parameters in reverse). A bucket
// closes when it reaches its cap (1 MiB for the first, 25 MiB after), so it can overshoot by one
// tensor; tensors are never split. Each closed bucket's all_reduce is issued at once, after the
// backward compute that produced its last gradient, and overlaps the rest of backward; buckets go
// out in order on the one communicator. The optimizer waits for all of them.
// With gradient_as_bucket_view off (PyTorch's default) the gradients are copied into each bucket
// before its all_reduce and back out of all buckets before the optimizer, on the compute stream.
// broadcast_buffers is left out: these models have no buffers to broadcast.
#include "step/strategy.h"

namespace wb::step {

Program make_ddp_program(const Model& model, const StepSettings& s) {
  Program p;
  p.strategy = strategy_name(Strategy::kDdp);
  p.variant_note = std::string("PyTorch DDP: 25 MiB buckets, first 1 MiB, fp32 gradients") +
                   (s.gradient_as_bucket_view ? ", gradients as bucket views" : ", gradients copied to and from buckets");
  p.ranks = s.ranks;
  p.group_sizes[static_cast<int>(Group::kWorld)] = s.ranks;
  const ModelShape& shape = model.shape;
  const std::uint64_t head = shape.vocab * shape.hidden;
  constexpr int kGradBytes = 4;

  for (std::size_t u = 1; u < model.units.size(); ++u)
    p.compute("fwd " + model.units[u].name, forward_us(model.units[u].parameters(), s));
  p.compute("fwd head", forward_us(head, s));

  std::uint64_t bucket_bytes = 0, all_bytes = 0;
  int buckets = 0;
  std::vector<int> reductions;
  auto close_bucket = [&](int ready_op) {
    if (!s.gradient_as_bucket_view)
      ready_op = p.compute("copy into bucket " + std::to_string(buckets), device_copy_us(bucket_bytes, s));
    reductions.push_back(p.collective(CollOp::kAllReduce, Group::kWorld, bucket_bytes, kGradBytes,
                                      "all_reduce bucket " + std::to_string(buckets), {ready_op}));
    ++buckets;
    all_bytes += bucket_bytes;
    bucket_bytes = 0;
  };
  auto add_gradient = [&](const Tensor& t, int ready_op) {
    bucket_bytes += t.elements * kGradBytes;
    const std::uint64_t cap = buckets == 0 ? s.first_bucket_bytes : s.bucket_cap_bytes;
    if (bucket_bytes >= cap) close_bucket(ready_op);
  };
  // The root's tensors: the head's (output, final norm) are ready after the head's backward, the
  // embedding's (and learned positions') after the first layer's.
  const Unit& root = model.units.front();
  int ready = p.compute("bwd head", backward_us(forward_us(head, s), s, false));
  for (auto t = root.tensors.rbegin(); t != root.tensors.rend(); ++t)
    if (t->name == "output" || t->name == "final_norm") add_gradient(*t, ready);
  for (std::size_t u = model.units.size() - 1; u >= 1; --u) {
    const Unit& unit = model.units[u];
    ready = p.compute("bwd " + unit.name, backward_us(forward_us(unit.parameters(), s), s, true));
    for (auto t = unit.tensors.rbegin(); t != unit.tensors.rend(); ++t) add_gradient(*t, ready);
  }
  for (auto t = root.tensors.rbegin(); t != root.tensors.rend(); ++t)
    if (t->name != "output" && t->name != "final_norm") add_gradient(*t, ready);
  if (bucket_bytes > 0) close_bucket(ready);
  if (!s.gradient_as_bucket_view) p.compute("copy out of buckets", device_copy_us(all_bytes, s), reductions);
  p.compute("optimizer", optimizer_us(model.parameters(), s), reductions);
  return p;
}

}  // namespace wb::step
