#include "topology/text_input.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/errors.h"

namespace wb {

std::string read_text_file(const std::string& path) {
  // The system's own words for a path that cannot be read ("no such file or directory", "permission
  // denied"); a directory opens on Linux and reads as nothing, so it is named before.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, 0, "is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string words = errno != 0 ? std::strerror(errno) : "cannot open file";
    if (!words.empty()) words[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(words[0])));
    throw InputError(path, 0, words);
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

void require_text(std::string_view text, const std::string& source) {
  long line = 1;
  for (unsigned char c : text) {
    if (c == '\n') ++line;
    const bool allowed = c == '\t' || c == '\r' || c == '\n' || c == 0x1b || c >= 0x20;
    if (!allowed) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", c);
      throw InputError(source, line, std::string("not text: byte ") + hex);
    }
  }
}

std::string strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == 0x1b && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
      continue;  // skips the final letter too
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> split_whitespace(std::string_view line) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) tokens.emplace_back(line.substr(start, i - start));
  }
  return tokens;
}

std::string trim(std::string_view text) {
  std::size_t a = 0, b = text.size();
  while (a < b && std::isspace(static_cast<unsigned char>(text[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(text[b - 1]))) --b;
  return std::string(text.substr(a, b - a));
}

}  // namespace wb
