// A row's src and dst as every binary writes them: NODE/KINDINDEX (schema/endpoints.csv), the one
// builder of that grammar in C++; the reporter parses it in python/wirebench/report/endpoints.py.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "schema/endpoint_kinds.h"

namespace wb {

// "node3/gpu5" from ("node3", EndpointKind::kGpu, 5).
inline std::string endpoint_name(std::string_view node, EndpointKind kind, int index) {
  std::string name(node);
  name.append("/").append(kEndpointWords[static_cast<std::size_t>(kind)]).append(std::to_string(index));
  return name;
}

}  // namespace wb
