#include "harness/size_spec.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "harness/errors.h"

namespace wb {
namespace {

constexpr std::size_t kMaxSizesInSpec = 100000;  // guards "0:4G:+1" from filling memory

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::uint64_t unit_multiplier(std::string_view unit, std::string_view whole) {
  const std::string u = lower(unit);
  if (u.empty() || u == "b") return 1;
  static constexpr const char* kPrefixes = "kmgt";
  const auto prefix = std::string_view(kPrefixes).find(u[0]);
  if (prefix != std::string_view::npos) {
    const std::string rest = u.substr(1);
    std::uint64_t binary = 1, decimal = 1;
    for (std::size_t i = 0; i <= prefix; ++i) {
      binary *= 1024;
      decimal *= 1000;
    }
    if (rest.empty() || rest == "i" || rest == "ib") return binary;
    if (rest == "b") return decimal;
  }
  throw UsageError("unknown size unit " + quoted(unit) + " in " + quoted(whole) +
                   " (use B, K/KiB, M/MiB, G/GiB, T/TiB or KB/MB/GB/TB)");
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

struct Step {
  bool additive = false;
  std::uint64_t value = 2;
};

Step parse_step(std::string_view text, std::string_view item) {
  Step step;
  if (!text.empty() && text.front() == '+') {
    step.additive = true;
    step.value = parse_size(text.substr(1));
    if (step.value == 0) throw UsageError("additive step must be positive in " + quoted(item));
    return step;
  }
  if (!text.empty() && (text.front() == 'x' || text.front() == 'X' || text.front() == '*'))
    text.remove_prefix(1);
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, step.value);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw UsageError("bad step " + quoted(text) + " in " + quoted(item) +
                     " (a whole factor such as 2 or x4, or +SIZE)");
  if (step.value < 2) throw UsageError("factor must be at least 2 in " + quoted(item));
  return step;
}

void expand_range(std::uint64_t first, std::uint64_t last, Step step, std::string_view item,
                  std::vector<std::uint64_t>& out) {
  if (first > last) throw UsageError("range start is above its end in " + quoted(item));
  std::uint64_t size = first;
  while (true) {
    if (out.size() >= kMaxSizesInSpec)
      throw UsageError("size spec " + quoted(item) + " expands to too many sizes");
    out.push_back(size);
    std::uint64_t next;
    if (step.additive) {
      if (__builtin_add_overflow(size, step.value, &next)) break;
    } else if (size == 0) {
      next = 1;
    } else if (__builtin_mul_overflow(size, step.value, &next)) {
      break;
    }
    if (next > last) break;
    size = next;
  }
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
  const std::string_view whole = text;
  text = trim(text);
  if (text.empty()) throw UsageError("missing size value");
  if (text.front() == '-') throw UsageError("negative size " + quoted(whole));
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) throw UsageError("size " + quoted(whole) + " does not start with a number");
  if (digits < text.size() && text[digits] == '.')
    throw UsageError("size " + quoted(whole) + " must be a whole number of bytes or units");
  std::uint64_t number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc()) throw UsageError("size " + quoted(whole) + " is too large");
  (void)ptr;
  const std::uint64_t multiplier = unit_multiplier(trim(text.substr(digits)), whole);
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(number, multiplier, &bytes))
    throw UsageError("size " + quoted(whole) + " is too large");
  return bytes;
}

std::vector<std::uint64_t> parse_size_spec(std::string_view spec) {
  if (trim(spec).empty()) throw UsageError("missing size value");
  std::vector<std::uint64_t> sizes;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string_view item = trim(spec.substr(start, comma - start));
    if (item.empty()) throw UsageError("empty entry in size list " + quoted(spec));
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) {
      sizes.push_back(parse_size(item));
    } else {
      const std::size_t colon2 = item.find(':', colon + 1);
      const std::uint64_t first = parse_size(item.substr(0, colon));
      const std::string_view end_text =
          item.substr(colon + 1, colon2 == std::string_view::npos ? std::string_view::npos
                                                                  : colon2 - colon - 1);
      const std::uint64_t last = parse_size(end_text);
      const Step step = colon2 == std::string_view::npos
                            ? Step{}
                            : parse_step(trim(item.substr(colon2 + 1)), item);
      expand_range(first, last, step, item, sizes);
    }
    start = comma + 1;
  }
  return sizes;
}

std::string decimal_units_note(std::string_view spec) {
  std::string note;
  std::size_t start = 0;
  const std::string text(spec);
  while (start < text.size()) {
    // Each size in the spec: split at ',' and ':' (a "+STEP" is a size too).
    const std::size_t end = std::min(text.find_first_of(",:", start), text.size());
    std::string_view item = trim(std::string_view(text).substr(start, end - start));
    if (!item.empty() && item.front() == '+') item.remove_prefix(1);
    const std::string l = lower(item);
    if (l.size() > 2 && l.ends_with("b") && std::string("kmgt").find(l[l.size() - 2]) != std::string::npos &&
        std::isdigit(static_cast<unsigned char>(l.front()))) {
      // Appended piece by piece: GCC 12 warns falsely on "literal" + string at -O3 (-Wrestrict, GCC
      // bug 105651), and Release builds use -O3.
      if (!note.empty()) note += ", ";
      note.append(item).append(" = ").append(thousands(parse_size(item))).append(" B");
    }
    start = end + 1;
  }
  return note;
}

std::string thousands(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_size(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t unit = 0;
  while (bytes != 0 && bytes % 1024 == 0 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + kUnits[unit];
}

}  // namespace wb
