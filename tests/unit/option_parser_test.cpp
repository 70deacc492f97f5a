// Options declared once: what the parser accepts is what --help lists, and a slip gets a suggestion.
#include "harness/option_parser.h"

#include <gtest/gtest.h>

#include "harness/errors.h"
#include "harness/console_view.h"
#include "harness/size_spec.h"

namespace wb {
namespace {

std::string error_of(OptionParser& parser, std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  CommandLine line(static_cast<int>(argv.size()), argv.data());
  try {
    parser.parse(line);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(OptionParser, HelpListsWhatTheParserTakes) {
  std::string sizes;
  bool json = false;
  OptionParser parser("prog", "prog: a test");
  parser.value("-b,--minbytes", "SIZE", "first size", [&](const std::string& v) { sizes = v; });
  parser.flag("--json", "print JSON", [&] { json = true; });
  const std::string help = parser.help();
  EXPECT_NE(help.find("-b,--minbytes SIZE"), std::string::npos) << help;
  EXPECT_NE(help.find("--json"), std::string::npos);
  EXPECT_EQ(help.find("Usage:"), std::string::npos);  // the synopsis says how to call it
  EXPECT_EQ(error_of(parser, {"-b", "8", "--json", "--benchmark_filter=x"}), "no error");
  EXPECT_EQ(sizes, "8");
  EXPECT_TRUE(json);
  EXPECT_EQ(error_of(parser, {"--minbytes=1K", "-b", "2K"}), "no error");
  EXPECT_EQ(sizes, "2K");  // the last of repeated options wins, as getopt's do
}

TEST(OptionParser, MistakesSayWhatIsWrong) {
  OptionParser parser("prog", "prog: a test");
  parser.value("-b,--minbytes", "SIZE", "first size", [](const std::string&) {});
  parser.value("--warmup_iters", "N", "warm-up", [](const std::string& v) {
    if (v == "x") throw UsageError("--warmup_iters: 'x' is not a number");
  });
  EXPECT_EQ(error_of(parser, {"-b"}), "option -b needs a value");
  EXPECT_EQ(error_of(parser, {"-b", "--warmup_iters", "3"}), "option -b needs a value");
  EXPECT_EQ(error_of(parser, {"--warmup_iters", "x"}), "--warmup_iters: 'x' is not a number");
  EXPECT_EQ(error_of(parser, {"--minbyte", "8"}), "unknown option --minbyte (did you mean --minbytes?); --help lists them");
  EXPECT_EQ(error_of(parser, {"--frobnicate"}), "unknown option --frobnicate; --help lists them");
  EXPECT_EQ(error_of(parser, {"stray"}), "unexpected argument 'stray'");
}

TEST(OptionParser, ClosestOptionIsASlipAwayOrNothing) {
  const std::vector<std::string> known = {"--minbytes", "--maxbytes", "--warmup_iters", "-b"};
  EXPECT_EQ(closest_option("--minbyte", known), "--minbytes");
  EXPECT_EQ(closest_option("--warmup-iters=3", known), "--warmup_iters");
  EXPECT_EQ(closest_option("--zzz", known), "");
  EXPECT_EQ(closest_option("-x", known), "");
}

TEST(SizeUnits, DecimalUnitsAreEchoed) {
  EXPECT_EQ(decimal_units_note("8,4MB"), "4MB = 4,000,000 B");
  EXPECT_EQ(decimal_units_note("1KB:1GB:+500KB"), "1KB = 1,000 B, 1GB = 1,000,000,000 B, 500KB = 500,000 B");
  EXPECT_EQ(decimal_units_note("8:4MiB"), "");
  EXPECT_EQ(decimal_units_note("4M"), "");
}

}  // namespace
}  // namespace wb

namespace wb {
namespace {

TEST(ConsoleNumbers, PlainFourSignificantDigitsNeverExponents) {
  EXPECT_EQ(plain_number(0.4386), "0.4386");
  EXPECT_EQ(plain_number(813.84), "813.8");
  EXPECT_EQ(plain_number(4.9151), "4.915");
  EXPECT_EQ(plain_number(0.004939), "0.004939");
  EXPECT_EQ(plain_number(22810.4), "22810");
  EXPECT_EQ(plain_number(0), "0");
  EXPECT_EQ(plain_number(kNotMeasured), "-");
}

}  // namespace
}  // namespace wb
