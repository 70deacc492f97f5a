#include "step/model.h"

#include <gtest/gtest.h>

#include <fstream>

#include "harness/errors.h"
#include "../test_files.h"

namespace wb::step {
namespace {

const std::string kModels = WB_SOURCE_SUITES_DIR "/models";

TEST(ModelTest, LlamaShapesGiveThePublishedParameterCounts) {
  // Meta's model cards: 6,738,415,616 and 68,976,648,192 parameters.
  EXPECT_EQ(load_model("llama2-7b", kModels).parameters(), 6738415616ull);
  EXPECT_EQ(load_model("llama2-70b", kModels).parameters(), 68976648192ull);
  const Model m13 = load_model("llama2-13b", kModels);
  EXPECT_NEAR(static_cast<double>(m13.parameters()), 13.0e9, 0.1e9);
}

TEST(ModelTest, UnitsAreTheRootThenTheLayersInForwardOrder) {
  const Model m = load_model("tiny", kModels);
  ASSERT_EQ(m.units.size(), 5u);
  EXPECT_TRUE(m.units[0].root);
  EXPECT_EQ(m.units[1].name, "layer0");
  EXPECT_EQ(m.units[4].name, "layer3");
  // 4h^2 + 3hf + 2h with h 384, f 1024
  EXPECT_EQ(m.units[1].parameters(), 4ull * 384 * 384 + 3ull * 384 * 1024 + 2 * 384);
  EXPECT_EQ(m.units[0].parameters(), 2ull * 2048 * 384 + 384);
}

TEST(ModelTest, GroupedQueryAttentionShrinksKeyAndValue) {
  ModelShape s{"gqa", 1, 64, 128, 10, 0, 8, 2, true, false, ""};
  const Model m = build_model(s);
  std::uint64_t k = 0;
  for (const auto& t : m.units[1].tensors)
    if (t.name == "k") k = t.elements;
  EXPECT_EQ(k, 64u * 16u);
}

TEST(ModelTest, TiedEmbeddingsHaveNoOutputMatrix) {
  const Model m = load_model("gpt2-xl", kModels);
  for (const auto& t : m.units[0].tensors) EXPECT_NE(t.name, "output");
  EXPECT_NEAR(static_cast<double>(m.parameters()), 1.55e9, 0.03e9);  // 1.56 B with the biases left out
}

class BadModelFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    const std::string path = dir_.file("model.json");  // a folder per process and test: ctest runs them side by side
    std::ofstream(path) << text;
    return path;
  }
  wb::testing::TempDir dir_;
};

TEST_F(BadModelFile, SyntaxErrorsNameTheFileAndLine) {
  const std::string path = write("{\n  \"layers\": 2,\n  \"hidden\": ,\n}\n");
  try {
    read_model_shape(path);
    FAIL() << "accepted broken JSON";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3:"), std::string::npos) << e.what();
  }
}

TEST_F(BadModelFile, MissingAndWrongFieldsAreNamed) {
  EXPECT_THROW(
      {
        try {
          read_model_shape(write(R"({"layers": 2, "hidden": 64, "vocab": 10})"));
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("missing \"mlp\""), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
  EXPECT_THROW(read_model_shape(write(R"({"layers": -2, "hidden": 64, "mlp": 1, "vocab": 10})")), InputError);
  EXPECT_THROW(read_model_shape(write(R"({"layers": 2, "hidden": 64, "mlp": 1, "vocab": 10, "heads": 3})")), InputError);
}

TEST(ModelTest, UnknownModelNamesListTheKnownOnes) {
  try {
    load_model("gpt5", kModels);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("llama2-7b"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wb::step
