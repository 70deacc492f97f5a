// The `extra` column of results.csv: key=value items separated by ';' (docs/results.md, "extra").
// Every benchmark writes it through ExtraItems, the one writer; the reporter's extra.py is the one
// reader. Which keys exist and what each is (identity, batching or result) is listed once, in
// schema/extra-items.csv, compiled into the binaries: a key missing from it is a programming error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace wb {

// identity: part of what was measured (runs are matched by it); batching: follows the size or the
// repetition (how many operations a batch holds); result: a measured figure.
// kFact: what the measurement ran with (a tool's or library's version): not part of what it is
enum class ExtraKind { kIdentity, kBatching, kResult, kFact };

// The kind of `key` from the catalogue (a catalogue key ending in '*' is a prefix), or nullopt.
std::optional<ExtraKind> extra_kind(std::string_view key);

class ExtraItems {
 public:
  ExtraItems() = default;

  // Adds or replaces an item. Throws std::logic_error when the key is not in the catalogue or is
  // not [A-Za-z][A-Za-z0-9_]*, or the value holds ';', a line break or is empty.
  ExtraItems& set(std::string_view key, std::string_view value);
  ExtraItems& set(std::string_view key, std::uint64_t value);
  // Every item of `other`, in its order (replacing items of the same key).
  ExtraItems& merge(const ExtraItems& other);

  // "k=v;k=v", in the order the items were first set.
  std::string text() const;
  // Only the identity items: what names the measurement whatever its size.
  std::string identity_text() const;
  std::optional<std::string> get(std::string_view key) const;
  bool empty() const { return items_.empty(); }

  // Reads text() back. Throws std::invalid_argument naming the item that is not key=value.
  static ExtraItems parse(std::string_view text);

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

}  // namespace wb
