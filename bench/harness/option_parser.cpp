#include "harness/option_parser.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <numeric>

#include "harness/errors.h"

namespace wb {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// CLI11's "--minbytes: 1 required TEXT missing" in the words of the rest of wirebench.
std::string usage_message(const CLI::ParseError& error) {
  const std::string text = error.what();
  const auto colon = text.find(':');
  if (colon != std::string::npos && text.find("required", colon) != std::string::npos &&
      text.find("missing", colon) != std::string::npos)
    return "option " + text.substr(0, colon) + " needs a value";
  return text;
}

// The synopsis says how to call the program (with mpiexec where it needs it): no second usage line.
class Formatter final : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string) const override { return ""; }
};

}  // namespace

std::string closest_option(const std::string& unknown, const std::vector<std::string>& known) {
  const std::string bare = unknown.substr(0, unknown.find('='));
  std::string best;
  std::size_t best_distance = 0;
  for (const auto& name : known) {
    const std::size_t distance = edit_distance(bare, name);
    if (best.empty() || distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  // Close: a slip of a character or two, or a third of a long name.
  const std::size_t allowed = std::max<std::size_t>(2, bare.size() / 3);
  return !best.empty() && best_distance <= allowed && bare.size() > 2 ? best : "";
}

OptionParser::OptionParser(std::string program, std::string synopsis, std::string footer)
    : app_(std::make_unique<CLI::App>(std::move(synopsis), std::move(program))) {
  app_->allow_extras();
  app_->set_help_flag("-h,--help", "print this help and exit");
  app_->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  auto formatter = std::make_shared<Formatter>();
  formatter->column_width(34);
  app_->formatter(formatter);
  if (!footer.empty()) app_->footer(std::move(footer));
}

OptionParser::~OptionParser() = default;

OptionParser& OptionParser::value(const std::string& names, const std::string& metavar, const std::string& help,
                                  std::function<void(const std::string&)> apply) {
  app_->add_option_function<std::string>(names, std::move(apply), help)->type_name(metavar)->group(group_);
  for (const auto& name : split_list(names)) value_names_.push_back(name);
  return *this;
}

OptionParser& OptionParser::flag(const std::string& names, const std::string& help, std::function<void()> apply) {
  app_->add_flag_callback(names, std::move(apply), help)->group(group_);
  return *this;
}

OptionParser& OptionParser::group(const std::string& title) {
  group_ = title;
  return *this;
}

std::vector<std::string> OptionParser::known_names() const {
  std::vector<std::string> known;
  for (const CLI::Option* option : app_->get_options()) {
    for (const auto& name : option->get_lnames()) known.push_back("--" + name);
    for (const auto& name : option->get_snames()) known.push_back("-" + name);
  }
  return known;
}

void OptionParser::parse(CommandLine& line) {
  std::vector<std::string> arguments = line.arguments();
  // CLI11 would take the next option as the value ("--sizes --pairs=all"): say what is missing.
  const std::vector<std::string> known = known_names();
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (std::find(value_names_.begin(), value_names_.end(), arguments[i]) == value_names_.end()) continue;
    const bool last = i + 1 == arguments.size();
    const std::string next = last ? "" : arguments[i + 1].substr(0, arguments[i + 1].find('='));
    if (last || (next.starts_with("--") && (std::find(known.begin(), known.end(), next) != known.end() ||
                                            next.starts_with("--benchmark_"))))
      throw UsageError("option " + arguments[i] + " needs a value");
  }
  std::reverse(arguments.begin(), arguments.end());  // CLI11 reads a vector from the back
  try {
    app_->parse(arguments);
  } catch (const CLI::CallForHelp&) {
    return;  // --help is answered before parsing (CommandLine::asks_for_help)
  } catch (const CLI::ParseError& error) {
    throw UsageError(usage_message(error));
  }
  std::vector<std::string> benchmark;
  for (const auto& extra : app_->remaining()) {
    if (extra.starts_with("--benchmark_")) {
      benchmark.push_back(extra);
      continue;
    }
    if (!extra.starts_with("-") || extra == "-") throw UsageError("unexpected argument '" + extra + "'");
    const std::string close = closest_option(extra, known);
    throw UsageError("unknown option " + extra + (close.empty() ? "" : " (did you mean " + close + "?)") +
                     "; --help lists them");
  }
  line.set_benchmark_arguments(std::move(benchmark));
}

std::string OptionParser::help() const { return app_->help(); }

}  // namespace wb
