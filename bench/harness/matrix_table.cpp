#include "harness/matrix_table.h"

#include <algorithm>
#include <cstdio>

namespace wb {

std::string format_matrix(const MatrixTable& table, int decimals) {
  auto cell = [&](const std::optional<double>& v) {
    if (!v) return std::string("N/A");
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, *v);
    return std::string(text);
  };
  std::size_t label_width = table.row_axis.size() + table.column_axis.size() + 3;
  for (const auto& r : table.rows) label_width = std::max(label_width, r.size());
  std::size_t width = 3;
  for (const auto& c : table.columns) width = std::max(width, c.size());
  for (const auto& row : table.values)
    for (const auto& v : row) width = std::max(width, cell(v).size());

  std::string out = table.title + "\n";
  const std::string corner = table.row_axis + " \\ " + table.column_axis;
  out += corner + std::string(label_width - corner.size(), ' ');
  for (const auto& c : table.columns) out += "  " + std::string(width - c.size(), ' ') + c;
  out += "\n";
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    out += table.rows[r] + std::string(label_width - table.rows[r].size(), ' ');
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const std::string text = r < table.values.size() && c < table.values[r].size() ? cell(table.values[r][c]) : "N/A";
      out += "  " + std::string(width - text.size(), ' ') + text;
    }
    out += "\n";
  }
  return out;
}

}  // namespace wb
