#include "harness/run_metadata.h"

#include "harness/result_row.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <sys/utsname.h>

#include "harness/errors.h"

namespace wb {
namespace {

constexpr std::string_view kRecordedPrefixes[] = {"NCCL_", "UCX_", "MPIR_", "MPICH_", "HYDRA_",
                                                  "CUDA_VISIBLE_DEVICES", "WB_"};

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

nlohmann::json read_existing(const std::string& path) {
  std::ifstream in(path);
  if (!in) return nlohmann::json::object();
  try {
    nlohmann::json existing = nlohmann::json::parse(in);
    if (!existing.is_object()) throw InputError(path, 1, "meta.json is not a JSON object");
    return existing;
  } catch (const nlohmann::json::parse_error& e) {
    // byte offset -> line, so the message points at the damage
    std::ifstream again(path);
    std::string text((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
    const auto upto = std::min<std::size_t>(e.byte, text.size());
    const long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(upto), '\n');
    throw InputError(path, line, std::string("not valid JSON: ") + e.what());
  }
}

}  // namespace

bool is_recorded_variable(std::string_view name) {
  return std::any_of(std::begin(kRecordedPrefixes), std::end(kRecordedPrefixes),
                     [&](std::string_view prefix) { return name.starts_with(prefix); });
}

std::map<std::string, std::string> recorded_environment(const char* const* envp) {
  std::map<std::string, std::string> recorded;
  for (; envp != nullptr && *envp != nullptr; ++envp) {
    const std::string_view entry(*envp);
    const auto equals = entry.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view name = entry.substr(0, equals);
    if (is_recorded_variable(name)) recorded[std::string(name)] = std::string(entry.substr(equals + 1));
  }
  return recorded;
}

ExtraItems path_settings_extra(const char* const* envp) {
  static constexpr std::string_view kNames[] = {"NCCL_ALGO",        "NCCL_PROTO",         "NCCL_P2P_DISABLE",
                                                "NCCL_SHM_DISABLE", "NCCL_NET_GDR_LEVEL", "NCCL_IB_DISABLE",
                                                "UCX_RNDV_THRESH",  "UCX_RNDV_SCHEME",    "UCX_TLS"};
  ExtraItems extra;
  for (; envp != nullptr && *envp != nullptr; ++envp) {
    const std::string_view entry(*envp);
    const std::string_view name = entry.substr(0, entry.find('='));
    const bool chosen = std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames) ||
                        (name.starts_with("MPIR_CVAR_") && name.ends_with("_ALGORITHM")) ||
                        name.starts_with("MPIR_CVAR_CH4_PROGRESS_THROTTLE");  // how ranks wait: the pace of small messages
    if (chosen && name.size() + 1 < entry.size()) extra.set(name, entry.substr(name.size() + 1));
  }
  return extra;
}

std::string virtual_machine_evidence(const std::string& cpuinfo_path) {
  std::ifstream in(cpuinfo_path);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("flags")) continue;
    std::istringstream words(line.substr(line.find(':') == std::string::npos ? line.size() : line.find(':') + 1));
    for (std::string word; words >> word;)
      if (word == "hypervisor") return "the hypervisor CPU flag in " + cpuinfo_path;
    return "";  // the first processor's flags say it
  }
  return "";
}

void write_run_metadata(const std::string& path, const RunMetadata& meta) {
  nlohmann::json doc = read_existing(path);
  doc["schema_version"] = kMetaSchemaVersion;
  doc["results_schema_version"] = kResultsSchemaVersion;  // results.csv's columns and extra grammar
  if (!doc.contains("created")) doc["created"] = utc_now_iso8601();
  doc["updated"] = utc_now_iso8601();
  doc["version"] = meta.version;
  doc["revision"] = meta.revision;

  std::vector<std::string> hosts = doc.value("hosts", std::vector<std::string>{});
  for (const auto& host : meta.hosts)
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  doc["hosts"] = hosts;

  doc["versions"] = meta.versions;
  // the kernel the run measured on: a night's changes in the history name it (wirebench history)
  if (utsname host{}; uname(&host) == 0) doc["versions"]["kernel"] = std::string(host.release);
  doc["environment"] = meta.environment;
  // What the machine is, where it matters to a verdict (the reporter's typical shared-memory latency)
  doc["machine"] = {{"virtual", !meta.virtual_machine.empty()}, {"evidence", meta.virtual_machine}};
  nlohmann::json command = {{"argv", meta.command_line}, {"ranks", meta.ranks},
                            {"hosts", meta.hosts}, {"started", utc_now_iso8601()}};
  if (!doc.contains("commands") || !doc["commands"].is_array()) doc["commands"] = nlohmann::json::array();
  doc["commands"].push_back(command);

  // Write beside and rename, so a reader never sees half a file.
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    out << doc.dump(2) << '\n';
    if (!out) throw InputError(temporary, 0, "cannot write run metadata");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throw InputError(path, 0, "cannot replace run metadata");
}

}  // namespace wb
