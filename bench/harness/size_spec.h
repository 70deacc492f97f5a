// Message-size specifications as users of nccl-tests and OSU write them.
//
//   8, 4096, 256MiB, 4G        one size. K/M/G/T and KiB/MiB/GiB/TiB are powers of 1024 (as in
//                              nccl-tests' -b/-e); KB/MB/GB/TB are powers of 1000; B is bytes.
//   8:4G                       a range, doubling (8, 16, ..., 4 GiB)
//   8:4G:4  or  8:4G:x4        a range with a multiplication factor
//   0:1M:+64K                  a range with an additive step
//   8,64,1M:4M                 a list of any of the above, kept in the order given
// A range that starts at 0 with a factor continues from 1 (0, 1, 2, 4, ...).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

// What every --help says about size units.
inline constexpr const char* kSizeUnitsHelp =
    "K/M/G/T and KiB/MiB/GiB/TiB are powers of 1024, KB/MB/GB/TB powers of 1000";

// Throws wb::UsageError naming the offending text ("unknown size unit 'q' in '4q'").
std::uint64_t parse_size(std::string_view text);
std::vector<std::uint64_t> parse_size_spec(std::string_view spec);

// For a spec with decimal units, what they come to: "4MB = 4,000,000 B" (printed by the binaries,
// so that nobody mistakes 4MB for 4 MiB); "" when it has none.
std::string decimal_units_note(std::string_view spec);

// Short exact name for a size: 0B, 8B, 1000B, 4KiB, 256MiB, 4GiB.
std::string format_size(std::uint64_t bytes);

// A count with thousands separators: 1048576 -> "1,048,576".
std::string thousands(std::uint64_t n);

}  // namespace wb
