// Helpers shared by the readers of saved tool output: reading a file whole, refusing binary
// input, stripping ANSI escape sequences, splitting into lines and tokens.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wb {

// Throws InputError(path) when the file cannot be read.
std::string read_text_file(const std::string& path);

// Throws InputError naming the line of the first byte that text output never holds (NUL and
// other control bytes but tab, CR, LF and ESC).
void require_text(std::string_view text, const std::string& source);

// Removes ANSI escape sequences (ESC [ ... letter), as some nvidia-smi versions underline headers.
std::string strip_ansi(std::string_view text);

std::vector<std::string> split_lines(std::string_view text);  // CR LF and LF; no line ends kept
std::vector<std::string> split_whitespace(std::string_view line);
std::string trim(std::string_view text);

}  // namespace wb
