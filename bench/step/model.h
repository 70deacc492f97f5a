// A model as step emulation sees it: an ordered list of units (what FSDP wraps, what ZeRO-3
// fetches), each a list of parameter tensors, built from a shape file in suites/models/.
// Parameter counts follow docs/step-emulation.md: a decoder layer holds q, k, v, o (k and v smaller under
// grouped-query attention), a gated (3 matrices) or plain (2) MLP and two norms; embeddings V x h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wb::step {

struct ModelShape {
  std::string name;
  int layers = 0;
  std::uint64_t hidden = 0, mlp = 0, vocab = 0, positions = 0;  // positions: learned position table (GPT-2)
  int heads = 1, kv_heads = 1;
  bool gated_mlp = true;
  bool tied_embeddings = false;  // the output head reuses the embedding matrix (GPT-2)
  std::string source;            // where the shape comes from
  // Mixture of experts (every layer's MLP): `experts` MLPs of size `mlp` and a router; each token
  // goes to `top_k` of them. 0: a dense model.
  int experts = 0;
  int top_k = 2;
};

struct Tensor {
  std::string name;
  std::uint64_t elements = 0;
};

// The root unit holds what no layer owns (embeddings, final norm, output head). Its forward work
// is split in two places: the embedding before the layers and the head after them.
struct Unit {
  std::string name;
  std::vector<Tensor> tensors;
  bool root = false;
  std::uint64_t parameters() const;
};

struct Model {
  ModelShape shape;
  std::vector<Unit> units;  // units[0] is the root; then the layers in forward order
  std::uint64_t parameters() const;
};

Model build_model(const ModelShape& shape);
// Reads a JSON shape file; errors (InputError) name the file and the problem.
ModelShape read_model_shape(const std::string& path);
// `name_or_path`: a file, or a name looked up as <models_dir>/<name>.json.
Model load_model(const std::string& name_or_path, const std::string& models_dir);

}  // namespace wb::step
