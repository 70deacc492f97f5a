#include "comm/communicator.h"

namespace wb {

std::string describe(const Request& request) {
  const bool send = request.kind == Request::Kind::kSend;
  return std::string(send ? "send of " : "receive of ") + std::to_string(request.bytes) +
         " bytes " + (send ? "to" : "from") + " rank " + std::to_string(request.peer);
}

}  // namespace wb
