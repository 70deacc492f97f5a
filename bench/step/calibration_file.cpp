#include "step/calibration_file.h"

#include <libfccp/csv.h>

#include <fstream>
#include <map>
#include <tuple>

#include "harness/csv_number.h"
#include "harness/errors.h"

namespace wb::step {

namespace {

const std::string kFormatPrefix = "# wirebench step_calibration format ";
const std::string kFormatLine = kFormatPrefix + std::to_string(kCalibrationFormat);

Group group_named(const std::string& text, const std::string& path, long line) {
  for (int g = 0; g < kGroups; ++g)
    if (text == group_name(static_cast<Group>(g))) return static_cast<Group>(g);
  throw InputError(path, line, "column group: '" + text + "' is not world, shard or replicate");
}

CallContext context_named(const std::string& text, const std::string& path, long line) {
  for (CallContext c : {CallContext::kQueued, CallContext::kIsolated})
    if (text == context_name(c)) return c;
  throw InputError(path, line, "column context: '" + text + "' is not queued or isolated");
}

}  // namespace

void write_calibration_csv(const std::string& path, const std::vector<CalibrationPoint>& calibration) {
  std::ofstream out(path);
  out << kFormatLine << "\nop,group,ranks,element_bytes,context,bytes,time_us,alpha_us,beta_us_per_byte,ranks_per_core\n";
  for (const auto& c : calibration)
    for (const auto& p : c.points)
      out << describe(c.op).name << ',' << group_name(c.group) << ',' << c.ranks << ',' << c.element_bytes << ','
          << context_name(c.context) << ',' << p.bytes << ',' << p.time_us << ',' << c.fit.alpha_us << ','
          << c.fit.beta_us_per_byte << ',' << c.ranks_per_core << '\n';
  if (!out) throw InputError(path, 0, "could not be written");
}

std::vector<CalibrationPoint> read_calibration_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot be read");
  std::string first;
  std::getline(in, first);
  int format = 0;
  for (int f = kOldestCalibrationFormatRead; f <= kCalibrationFormat; ++f)
    if (first == kFormatPrefix + std::to_string(f)) format = f;
  if (format == 0)
    throw InputError(path, 1,
                     first.rfind("op,", 0) == 0
                         ? "format 1 (before call contexts): calibrate again with this wb-step"
                         : "not a wb-step calibration of format " + std::to_string(kCalibrationFormat) +
                               " (its first line should be '" + kFormatLine + "')");
  std::vector<CalibrationPoint> points;
  std::map<std::tuple<CollOp, Group, int, int, CallContext>, std::size_t> where;
  try {
    io::CSVReader<10, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> csv(path, in);
    // Format 2 has no ranks_per_core column: it reads as 0 (not recorded).
    csv.read_header(format >= 3 ? io::ignore_extra_column : io::ignore_extra_column | io::ignore_missing_column,
                    "op", "group", "ranks", "element_bytes", "context", "bytes", "time_us", "alpha_us",
                    "beta_us_per_byte", "ranks_per_core");
    std::string op, group, ranks, element, context, bytes, time, alpha, beta, sharing = "0";
    while (csv.read_row(op, group, ranks, element, context, bytes, time, alpha, beta, sharing)) {
      const long line = static_cast<long>(csv.get_file_line()) + 1;  // the format line came first
      CollOp collective;
      try {
        collective = parse_collective(op);
      } catch (const UsageError& e) {
        throw InputError(path, line, e.what());
      }
      const Group g = group_named(group, path, line);
      const int n = static_cast<int>(csv_number(ranks, "ranks", path, line));
      const int e = static_cast<int>(csv_number(element, "element_bytes", path, line));
      const CallContext c = context_named(context, path, line);
      const auto key = std::tuple{collective, g, n, e, c};
      auto [it, added] = where.try_emplace(key, points.size());
      if (added) {
        points.push_back({collective, g, n, e, c, {}, {}});
        points.back().fit = {csv_number(alpha, "alpha_us", path, line), csv_number(beta, "beta_us_per_byte", path, line),
                             0};
        points.back().ranks_per_core = csv_number(sharing, "ranks_per_core", path, line);
      }
      CalibrationPoint& point = points[it->second];
      point.points.push_back({static_cast<std::uint64_t>(csv_number(bytes, "bytes", path, line)),
                              csv_number(time, "time_us", path, line), 0});
      point.fit.points = point.points.size();
    }
  } catch (const io::error::base& e) {
    throw InputError(path, 0, e.what());
  }
  if (points.empty()) throw InputError(path, 2, "no calibration points");
  return points;
}

}  // namespace wb::step
