#include "comm/communicator.h"

namespace wb {

std::string describe(const CollectiveCall& call) {
  return std::string(wb::describe(call.op).name) + " of " + std::to_string(call.count) + " " + info(call.dtype).name +
         (call.in_place ? " (in place)" : "");
}

std::string describe(const Request& request) {
  if (request.kind == Request::Kind::kCollective)
    return std::string(request.collective != nullptr ? request.collective : "collective") + " of " +
           std::to_string(request.bytes) + " bytes";
  const bool send = request.kind == Request::Kind::kSend;
  return std::string(send ? "send of " : "receive of ") + std::to_string(request.bytes) +
         " bytes " + (send ? "to" : "from") + " rank " + std::to_string(request.peer);
}

}  // namespace wb
