#include "step/model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/errors.h"

namespace wb::step {

std::uint64_t Unit::parameters() const {
  std::uint64_t total = 0;
  for (const auto& t : tensors) total += t.elements;
  return total;
}

std::uint64_t Model::parameters() const {
  std::uint64_t total = 0;
  for (const auto& u : units) total += u.parameters();
  return total;
}

Model build_model(const ModelShape& s) {
  Model model;
  model.shape = s;
  const std::uint64_t h = s.hidden;
  const std::uint64_t kv = h * static_cast<std::uint64_t>(s.kv_heads) / static_cast<std::uint64_t>(s.heads);
  Unit root{"root", {{"embedding", s.vocab * h}}, true};
  if (s.positions > 0) root.tensors.push_back({"positions", s.positions * h});
  root.tensors.push_back({"final_norm", h});
  if (!s.tied_embeddings) root.tensors.push_back({"output", s.vocab * h});
  model.units.push_back(root);
  for (int i = 0; i < s.layers; ++i) {
    Unit layer{"layer" + std::to_string(i), {}, false};
    layer.tensors = {{"attn_norm", h}, {"q", h * h}, {"k", h * kv}, {"v", h * kv}, {"o", h * h}, {"mlp_norm", h}};
    if (s.experts > 0) {
      layer.tensors.push_back({"router", h * static_cast<std::uint64_t>(s.experts)});
      for (int e = 0; e < s.experts; ++e) {
        const std::string expert = "expert" + std::to_string(e) + ".";
        if (s.gated_mlp) layer.tensors.push_back({expert + "gate", h * s.mlp});
        layer.tensors.push_back({expert + "up", h * s.mlp});
        layer.tensors.push_back({expert + "down", s.mlp * h});
      }
    } else {
      if (s.gated_mlp) layer.tensors.push_back({"gate", h * s.mlp});
      layer.tensors.push_back({"up", h * s.mlp});
      layer.tensors.push_back({"down", s.mlp * h});
    }
    model.units.push_back(std::move(layer));
  }
  return model;
}

namespace {

long line_of_offset(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
}

}  // namespace

ModelShape read_model_shape(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot read the model shape file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path, line_of_offset(text, e.byte > 0 ? e.byte - 1 : 0), std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw InputError(path, 1, "a model shape is a JSON object");
  ModelShape s;
  auto positive = [&](const char* key, bool required) -> std::uint64_t {
    if (!j.contains(key)) {
      if (required) throw InputError(path, 0, std::string("missing \"") + key + "\"");
      return 0;
    }
    const auto& v = j.at(key);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0)
      throw InputError(path, 0, std::string("\"") + key + "\" must be a whole number > 0, not " + v.dump());
    return v.get<std::uint64_t>();
  };
  s.name = j.value("name", std::filesystem::path(path).stem().string());
  s.layers = static_cast<int>(positive("layers", true));
  s.hidden = positive("hidden", true);
  s.mlp = positive("mlp", true);
  s.vocab = positive("vocab", true);
  s.positions = positive("positions", false);
  s.heads = static_cast<int>(j.contains("heads") ? positive("heads", false) : 1);
  s.kv_heads = static_cast<int>(j.contains("kv_heads") ? positive("kv_heads", false) : static_cast<std::uint64_t>(s.heads));
  s.gated_mlp = j.value("gated_mlp", true);
  s.tied_embeddings = j.value("tied_embeddings", false);
  s.source = j.value("source", "");
  if (j.contains("experts")) {
    s.experts = static_cast<int>(positive("experts", false));
    s.top_k = static_cast<int>(j.contains("top_k") ? positive("top_k", false) : 2);
    if (s.top_k > s.experts) throw InputError(path, 0, "\"top_k\" must not exceed \"experts\"");
  } else if (j.contains("top_k")) {
    throw InputError(path, 0, "\"top_k\" without \"experts\"");
  }
  if (s.kv_heads > s.heads || s.heads % s.kv_heads != 0)
    throw InputError(path, 0, "\"kv_heads\" must divide \"heads\"");
  if (s.hidden % static_cast<std::uint64_t>(s.heads) != 0) throw InputError(path, 0, "\"heads\" must divide \"hidden\"");
  return s;
}

Model load_model(const std::string& name_or_path, const std::string& models_dir) {
  std::string path = name_or_path;
  if (!std::filesystem::exists(path)) {
    path = models_dir + "/" + name_or_path + ".json";
    if (!std::filesystem::exists(path)) {
      std::string known;
      if (std::filesystem::is_directory(models_dir))
        for (const auto& entry : std::filesystem::directory_iterator(models_dir))
          if (entry.path().extension() == ".json") known += (known.empty() ? "" : ", ") + entry.path().stem().string();
      throw UsageError("--model: '" + name_or_path + "' is neither a file nor a model in " + models_dir +
                       " (known: " + known + ")");
    }
  }
  return build_model(read_model_shape(path));
}

}  // namespace wb::step
