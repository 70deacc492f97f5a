#include "harness/install_layout.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "harness/errors.h"

namespace wb {
namespace {

const char* nonempty_env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

std::string executable_dir() {
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw CallError("cannot read /proc/self/exe to find wirebench's data: " + error.message());
  return self.parent_path().string();
}

std::string data_dir() {
  if (const char* dir = nonempty_env("WIREBENCH_DATA")) return dir;
  const auto dir = std::filesystem::path(executable_dir()).parent_path() / "share" / "wirebench";
  if (!std::filesystem::is_directory(dir))
    throw InputError(dir.string(), 0,
                     "wirebench's data folder is missing (it is installed beside bin/ as share/wirebench; "
                     "set WIREBENCH_DATA to where it is)");
  return dir.string();
}

std::string suites_dir() {
  if (const char* dir = nonempty_env("WB_SUITES_DIR")) return dir;
  return data_dir() + "/suites";
}

}  // namespace wb
