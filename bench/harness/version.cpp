#include "harness/version.h"

#include <cstdio>
#include <cstring>

namespace wb {

bool answer_version(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") != 0) continue;
    const char* slash = std::strrchr(argv[0], '/');
    std::printf("%s (wirebench) %s, revision %s\n", slash != nullptr ? slash + 1 : argv[0], project_version(),
                project_revision());
    return true;
  }
  return false;
}

}  // namespace wb
