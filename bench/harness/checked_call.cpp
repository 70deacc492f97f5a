#include "harness/checked_call.h"

namespace wb {

std::string describe_failed_call(const char* library, const char* call, const char* file, int line,
                                 const std::string& library_message, long code) {
  return std::string(library) + " call " + call + " failed at " + file + ":" +
         std::to_string(line) + ": " + library_message + " (code " + std::to_string(code) + ")";
}

void throw_failed_call(const char* library, const char* call, const char* file, int line,
                       const std::string& library_message, long code) {
  throw CallError(describe_failed_call(library, call, file, line, library_message, code));
}

}  // namespace wb
