#include "coll/fits_file.h"

#include <libfccp/csv.h>

#include "harness/csv_number.h"
#include "harness/errors.h"

namespace wb {
std::vector<FitRow> read_fits_csv(const std::string& path) {
  std::vector<FitRow> rows;
  try {
    io::CSVReader<7, io::trim_chars<' ', '\t'>, io::double_quote_escape<',', '"'>> in(path);
    in.read_header(io::ignore_extra_column, "op", "dtype", "case", "link_class", "ranks", "alpha_us",
                   "beta_us_per_byte");
    std::string op, dtype, case_name, link_class, ranks, alpha, beta;
    while (in.read_row(op, dtype, case_name, link_class, ranks, alpha, beta)) {
      const long line = static_cast<long>(in.get_file_line());
      if (alpha.empty() || beta.empty()) continue;
      const double ranks_value = csv_number(ranks, "ranks", path, line);
      rows.push_back({op, dtype, case_name, link_class, static_cast<int>(ranks_value),
                      csv_number(alpha, "alpha_us", path, line), csv_number(beta, "beta_us_per_byte", path, line), line});
    }
  } catch (const io::error::base& e) {
    throw InputError(path, 0, e.what());
  }
  return rows;
}

}  // namespace wb
