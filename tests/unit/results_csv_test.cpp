#include <gtest/gtest.h>

#include <cmath>

#include "harness/errors.h"
#include "harness/results_csv_reader.h"
#include "harness/results_csv_writer.h"
#include "test_files.h"

namespace wb {
namespace {

using testing::TempDir;
using testing::read_text;
using testing::write_text;

ResultRow sample_row() {
  ResultRow row;
  row.bench = "net";
  row.case_name = "pingpong";
  row.backend = "mpi";
  row.link_class = "shm";
  row.src = "node1/rank0";
  row.dst = "node1/rank1";
  row.direction = "uni";
  row.op = "send_recv";
  row.dtype = "uint8";
  row.bytes = 4194304;
  row.ranks = 2;
  row.nodes = 1;
  row.iters = 1200;
  row.time_us = 512.25;
  row.time_us_p05 = 500.125;
  row.time_us_p95 = 530.5;
  row.algbw_GBps = 8.1879;
  row.busbw_GBps = 8.1879;
  row.errors = 3;
  row.extra = "window=16;rounds=1, with \"quotes\"";
  row.status = RowStatus::kOk;
  return row;
}

TEST(ResultsCsv, RoundTripKeepsEveryField) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  ResultRow skipped = sample_row();
  skipped.status = RowStatus::kSkip;
  skipped.reason = "no CUDA device visible";
  skipped.time_us = skipped.time_us_p05 = skipped.time_us_p95 = kNotMeasured;
  skipped.algbw_GBps = skipped.busbw_GBps = kNotMeasured;
  {
    ResultsCsvWriter writer(path);
    writer.write(sample_row());
    writer.write(skipped);
  }
  const ResultsFile file = read_results_csv(path);
  ASSERT_TRUE(file.problems.empty()) << file.problems.front();
  ASSERT_EQ(file.rows.size(), 2u);
  const ResultRow& a = file.rows[0];
  const ResultRow expected = sample_row();
  EXPECT_EQ(a.bench, expected.bench);
  EXPECT_EQ(a.case_name, expected.case_name);
  EXPECT_EQ(a.src, expected.src);
  EXPECT_EQ(a.bytes, expected.bytes);
  EXPECT_EQ(a.iters, expected.iters);
  EXPECT_DOUBLE_EQ(a.time_us, expected.time_us);
  EXPECT_DOUBLE_EQ(a.time_us_p05, expected.time_us_p05);
  EXPECT_DOUBLE_EQ(a.algbw_GBps, expected.algbw_GBps);
  EXPECT_EQ(a.errors, 3u);
  EXPECT_EQ(a.extra, expected.extra);
  EXPECT_EQ(a.status, RowStatus::kOk);
  EXPECT_EQ(file.rows[1].status, RowStatus::kSkip);
  EXPECT_EQ(file.rows[1].reason, "no CUDA device visible");
  EXPECT_TRUE(std::isnan(file.rows[1].time_us));
  EXPECT_EQ(file.rows[1].errors, std::optional<std::uint64_t>(3));
  EXPECT_EQ(file.row_lines[1], 3);
}

TEST(ResultsCsv, UncheckedDataIsAnEmptyErrorsFieldNotZero) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  ResultRow unchecked = sample_row();
  unchecked.errors = std::nullopt;
  { ResultsCsvWriter(path).write(unchecked); }
  EXPECT_NE(read_text(path).find(",8.1879,8.1879,,"), std::string::npos) << read_text(path);
  const ResultsFile file = read_results_csv(path);
  ASSERT_EQ(file.rows.size(), 1u);
  EXPECT_FALSE(file.rows[0].errors.has_value());
}

TEST(ResultsCsv, HeaderStartsWithTheMinimumSchemaInOrder) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  { ResultsCsvWriter writer(path); }
  EXPECT_EQ(read_text(path).substr(0, 60), std::string(
      "bench,case,backend,link_class,src,dst,direction,op,dtype,bytes,ranks,nodes,iters,"
      "time_us,time_us_p05,time_us_p95,algbw_GBps,busbw_GBps,errors,extra,status,reason\n").substr(0, 60));
}

TEST(ResultsCsv, EveryRowIsOnDiskAsSoonAsItIsWritten) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  ResultsCsvWriter writer(path);
  writer.write(sample_row());
  // Read back while the writer is still open: nothing may sit in a buffer.
  EXPECT_EQ(read_results_csv(path).rows.size(), 1u);
  writer.write(sample_row());
  EXPECT_EQ(read_results_csv(path).rows.size(), 2u);
}

TEST(ResultsCsv, AppendingKeepsOneHeader) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  { ResultsCsvWriter(path).write(sample_row()); }
  { ResultsCsvWriter(path).write(sample_row()); }
  const ResultsFile file = read_results_csv(path);
  EXPECT_TRUE(file.problems.empty());
  EXPECT_EQ(file.rows.size(), 2u);
}

TEST(ResultsCsv, ForeignHeaderIsRefusedNotMixed) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  write_text(path, "a,b,c\n1,2,3\n");
  try {
    ResultsCsvWriter writer(path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":1: header differs"), std::string::npos) << e.what();
  }
}

TEST(ResultsCsv, FileCutMidRowKeepsCompleteRowsAndSaysWhere) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  { ResultsCsvWriter writer(path); writer.write(sample_row()); writer.write(sample_row()); }
  std::string text = read_text(path);
  text.resize(text.size() - 20);  // the last row loses its end and its line break
  write_text(path, text);
  const ResultsFile file = read_results_csv(path);
  EXPECT_EQ(file.rows.size(), 1u);
  ASSERT_EQ(file.problems.size(), 1u);
  EXPECT_NE(file.problems[0].find(path + ":3: row is cut short"), std::string::npos) << file.problems[0];
}

TEST(ResultsCsv, CutInsideTheLastFieldIsStillDetected) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  { ResultsCsvWriter writer(path); ResultRow row = sample_row(); row.reason = "long reason text"; writer.write(row); }
  std::string text = read_text(path);
  text.resize(text.size() - 5);  // all columns present, but the line never ended
  write_text(path, text);
  const ResultsFile file = read_results_csv(path);
  EXPECT_TRUE(file.rows.empty());
  ASSERT_EQ(file.problems.size(), 1u);
  EXPECT_NE(file.problems[0].find(":2: row is cut short"), std::string::npos) << file.problems[0];
}

TEST(ResultsCsv, ACutLastRowDoesNotHideAnEarlierProblem) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  { ResultsCsvWriter writer(path); writer.write(sample_row()); }
  std::string text = read_text(path) + "net,too,few\n" + csv_line(to_fields(sample_row()));
  text.resize(text.size() - 10);  // the last (good) row is cut; line 3 was bad on its own
  write_text(path, text);
  const ResultsFile file = read_results_csv(path);
  EXPECT_EQ(file.rows.size(), 1u);
  ASSERT_EQ(file.problems.size(), 2u);
  EXPECT_NE(file.problems[0].find(":3: row has too few columns"), std::string::npos) << file.problems[0];
  EXPECT_NE(file.problems[1].find(":4: row is cut short"), std::string::npos) << file.problems[1];
}

TEST(ResultsCsv, BadRowsAreNamedByLineAndTheRestIsRead) {
  TempDir dir;
  const std::string path = dir.file("results.csv");
  { ResultsCsvWriter writer(path); writer.write(sample_row()); }
  std::string text = read_text(path);
  text += "net,pingpong,mpi,shm,a,b,uni,send_recv,uint8,notanumber,2,1,10,1,1,1,1,1,0,,OK,,,,,\n";
  text += "net,too,few\n";
  text += csv_line(to_fields(sample_row()));
  write_text(path, text);
  const ResultsFile file = read_results_csv(path);
  EXPECT_EQ(file.rows.size(), 2u);
  ASSERT_EQ(file.problems.size(), 2u);
  EXPECT_NE(file.problems[0].find(":3: column bytes: 'notanumber' is not a valid number"), std::string::npos)
      << file.problems[0];
  EXPECT_NE(file.problems[1].find(":4: row has too few columns"), std::string::npos) << file.problems[1];
}

TEST(ResultsCsv, MissingEmptyOrHeaderlessFilesAreClearErrors) {
  TempDir dir;
  EXPECT_THROW(read_results_csv(dir.file("absent.csv")), InputError);
  write_text(dir.file("empty.csv"), "");
  try {
    read_results_csv(dir.file("empty.csv"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("empty.csv:1: file is empty"), std::string::npos) << e.what();
  }
  write_text(dir.file("partial.csv"), "bench,case,backend\nnet,pingpong,mpi\n");
  try {
    read_results_csv(dir.file("partial.csv"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("partial.csv:1: header lacks column 'link_class'"), std::string::npos)
        << e.what();
  }
}

TEST(ResultsCsv, FieldsWithCommasAndLineBreaksStayOneRow) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "two lines");
}

TEST(ResultRow, BandwidthIsDecimalGigabytesPerSecond) {
  EXPECT_DOUBLE_EQ(bandwidth_GBps(1e9, 1e6), 1.0);      // 10^9 bytes in one second
  EXPECT_DOUBLE_EQ(bandwidth_GBps(4194304, 1000), 4.194304);
  EXPECT_TRUE(std::isnan(bandwidth_GBps(8, 0)));
}

}  // namespace
}  // namespace wb
