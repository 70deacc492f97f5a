#include "harness/run_metadata.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/errors.h"
#include "harness/version.h"
#include "test_files.h"

namespace wb {
namespace {

using testing::TempDir;

RunMetadata sample(const std::string& host, const std::string& first_arg) {
  RunMetadata meta;
  meta.hosts = {host};
  meta.ranks = 2;
  meta.command_line = {"wb-net", first_arg};
  meta.versions = {{"mpi", "MPICH Version: 4.0.2"}};
  meta.environment = {{"NCCL_ALGO", "Ring"}};
  meta.version = "9.8.7";
  meta.revision = "abc123";
  return meta;
}

TEST(RunMetadata, RecordsOnlyTheInterestingEnvironment) {
  const char* env[] = {"NCCL_ALGO=Ring", "UCX_TLS=tcp,self", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring",
                       "HOME=/root", "PATH=/usr/bin", "NCCL_DEBUG=", nullptr};
  const auto recorded = recorded_environment(env);
  EXPECT_EQ(recorded.size(), 4u);
  EXPECT_EQ(recorded.at("NCCL_ALGO"), "Ring");
  EXPECT_EQ(recorded.at("UCX_TLS"), "tcp,self");
  EXPECT_EQ(recorded.at("NCCL_DEBUG"), "");
  EXPECT_EQ(recorded.count("HOME"), 0u);
}

TEST(RunMetadata, WritesEveryFieldAndMergesASecondCommand) {
  TempDir dir;
  const std::string path = dir.file("meta.json");
  write_run_metadata(path, sample("node1", "--sizes=8"));
  write_run_metadata(path, sample("node2", "--pairs=all"));
  const auto doc = nlohmann::json::parse(testing::read_text(path));
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["version"], "9.8.7");
  EXPECT_EQ(doc["revision"], "abc123");
  EXPECT_EQ(doc["hosts"], (nlohmann::json{"node1", "node2"}));
  EXPECT_EQ(doc["versions"]["mpi"], "MPICH Version: 4.0.2");
  EXPECT_EQ(doc["environment"]["NCCL_ALGO"], "Ring");
  ASSERT_EQ(doc["commands"].size(), 2u);
  EXPECT_EQ(doc["commands"][0]["argv"][1], "--sizes=8");
  EXPECT_EQ(doc["commands"][1]["argv"][1], "--pairs=all");
  EXPECT_TRUE(doc.contains("created"));
}

TEST(RunMetadata, AVirtualMachineIsToldByItsHypervisorFlag) {
  TempDir dir;
  // /proc/cpuinfo's shape: a block per processor, "flags\t\t: ..." (KVM's guest on this project's VM)
  const std::string vm = dir.file("cpuinfo-vm"), metal = dir.file("cpuinfo-metal");
  testing::write_text(vm, "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu vme sse2 ht syscall nx "
                          "hypervisor lahf_lm\n\nprocessor\t: 1\nflags\t\t: fpu hypervisor\n");
  testing::write_text(metal, "processor\t: 0\nflags\t\t: fpu vme sse2 ht syscall nx lahf_lm hypervisor_x\n");
  EXPECT_EQ(virtual_machine_evidence(vm), "the hypervisor CPU flag in " + vm);
  EXPECT_EQ(virtual_machine_evidence(metal), "");
  EXPECT_EQ(virtual_machine_evidence(dir.file("absent")), "");

  RunMetadata meta = sample("node1", "--sizes=8");
  const std::string path = dir.file("meta.json");
  meta.virtual_machine = virtual_machine_evidence(vm);
  write_run_metadata(path, meta);
  auto doc = nlohmann::json::parse(testing::read_text(path));
  EXPECT_EQ(doc["machine"]["virtual"], true);
  EXPECT_EQ(doc["machine"]["evidence"], "the hypervisor CPU flag in " + vm);
  meta.virtual_machine = "";
  write_run_metadata(path, meta);
  doc = nlohmann::json::parse(testing::read_text(path));
  EXPECT_EQ(doc["machine"]["virtual"], false);
}

TEST(RunMetadata, DamagedFileIsNamedWithItsLine) {
  TempDir dir;
  const std::string path = dir.file("meta.json");
  testing::write_text(path, "{\n  \"hosts\": [\n  oops\n}\n");
  try {
    write_run_metadata(path, sample("node1", "x"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3: not valid JSON"), std::string::npos) << e.what();
  }
}

TEST(RunMetadata, VersionAndRevisionAreKnown) {
  EXPECT_STRNE(project_revision(), "");
  EXPECT_STRNE(project_version(), "");
}

}  // namespace
}  // namespace wb

TEST(RunMetadata, PathSettingsNameTheWiringARowMeasured) {
  const char* env[] = {"NCCL_ALGO=Ring", "NCCL_DEBUG=INFO", "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring",
                       "MPIR_CVAR_ASYNC_PROGRESS=1", "NCCL_P2P_DISABLE=1", "HOME=/root", "UCX_RNDV_THRESH=inf",
                       "UCX_LOG_LEVEL=warn", "MPIR_CVAR_CH4_PROGRESS_THROTTLE=1", nullptr};
  EXPECT_EQ(wb::path_settings_extra(env).text(),
            "NCCL_ALGO=Ring;MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring;NCCL_P2P_DISABLE=1;UCX_RNDV_THRESH=inf;"
            "MPIR_CVAR_CH4_PROGRESS_THROTTLE=1");
  const char* none[] = {"NCCL_DEBUG=INFO", nullptr};
  EXPECT_TRUE(wb::path_settings_extra(none).empty());
}
