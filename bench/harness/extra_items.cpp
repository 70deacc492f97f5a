#include "harness/extra_items.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

namespace wb {

// schema/extra-items.csv, embedded at configure time (bench/CMakeLists.txt).
extern const char* const kExtraCatalogueCsv;

namespace {

struct Catalogue {
  std::map<std::string, ExtraKind, std::less<>> exact;
  std::vector<std::pair<std::string, ExtraKind>> prefixes;
};

const Catalogue& catalogue() {
  static const Catalogue parsed = [] {
    Catalogue c;
    std::istringstream in(kExtraCatalogueCsv);
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
      if (line.empty() || line.front() == '#') continue;
      if (header) {  // key,kind,meaning
        header = false;
        continue;
      }
      const auto first = line.find(',');
      const auto second = line.find(',', first + 1);
      const std::string key = line.substr(0, first);
      const std::string kind_text = line.substr(first + 1, second - first - 1);
      const ExtraKind kind = kind_text == "identity" ? ExtraKind::kIdentity
                             : kind_text == "batching" ? ExtraKind::kBatching
                             : kind_text == "result"   ? ExtraKind::kResult
                             : kind_text == "fact"     ? ExtraKind::kFact
                                                       : throw std::logic_error("extra-items.csv: kind " + kind_text);
      if (key.ends_with('*')) c.prefixes.emplace_back(key.substr(0, key.size() - 1), kind);
      else c.exact.emplace(key, kind);
    }
    return c;
  }();
  return parsed;
}

bool valid_key(std::string_view key) {
  if (key.empty() || !std::isalpha(static_cast<unsigned char>(key.front()))) return false;
  return std::all_of(key.begin(), key.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

std::optional<ExtraKind> extra_kind(std::string_view key) {
  const Catalogue& c = catalogue();
  if (const auto it = c.exact.find(key); it != c.exact.end()) return it->second;
  for (const auto& [prefix, kind] : c.prefixes)
    if (key.starts_with(prefix)) return kind;
  return std::nullopt;
}

ExtraItems& ExtraItems::set(std::string_view key, std::string_view value) {
  if (!valid_key(key)) throw std::logic_error("extra: '" + std::string(key) + "' is not a key");
  if (!extra_kind(key)) throw std::logic_error("extra: key '" + std::string(key) + "' is not in schema/extra-items.csv");
  if (value.empty() || value.find_first_of(";\r\n") != std::string_view::npos)
    throw std::logic_error("extra: the value of '" + std::string(key) + "' is empty or holds ';' or a line break");
  for (auto& [k, v] : items_)
    if (k == key) {
      v = value;
      return *this;
    }
  items_.emplace_back(key, value);
  return *this;
}

ExtraItems& ExtraItems::set(std::string_view key, std::uint64_t value) { return set(key, std::to_string(value)); }

ExtraItems& ExtraItems::merge(const ExtraItems& other) {
  for (const auto& [k, v] : other.items_) set(k, v);
  return *this;
}

std::string ExtraItems::text() const {
  std::string out;
  for (const auto& [k, v] : items_) {
    if (!out.empty()) out += ';';
    out.append(k).append("=").append(v);
  }
  return out;
}

std::string ExtraItems::identity_text() const {
  ExtraItems identity;
  for (const auto& [k, v] : items_)
    if (extra_kind(k) == ExtraKind::kIdentity) identity.items_.emplace_back(k, v);
  return identity.text();
}

std::optional<std::string> ExtraItems::get(std::string_view key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return v;
  return std::nullopt;
}

ExtraItems ExtraItems::parse(std::string_view text) {
  ExtraItems items;
  while (!text.empty()) {
    const auto end = text.find(';');
    const std::string_view item = text.substr(0, end);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
      throw std::invalid_argument("extra: '" + std::string(item) + "' is not key=value");
    items.items_.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return items;
}

}  // namespace wb
