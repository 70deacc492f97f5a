# The contracts in schema/ generated into C++ headers (build/generated/schema/*.h), so the binaries
# hold the same lists the Python side reads at run time (python/wirebench/contracts/schema.py). Editing
# a schema file reconfigures. The CSVs' first column (and the second where named) never hold commas.

# The data rows of a schema CSV (no comments, no header line) into OUT, a list of lines.
function(wb_schema_rows file out)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  file(STRINGS ${file} lines)
  list(FILTER lines EXCLUDE REGEX "^#")
  list(POP_FRONT lines)  # the header
  set(${out} ${lines} PARENT_SCOPE)
endfunction()

# A snake_case word as the CamelCase of its C++ enumerator (link_class -> LinkClass).
function(wb_camel word out)
  string(REPLACE "_" ";" parts "${word}")
  set(camel "")
  foreach(part IN LISTS parts)
    string(SUBSTRING "${part}" 0 1 first)
    string(SUBSTRING "${part}" 1 -1 rest)
    string(TOUPPER "${first}" first)
    string(APPEND camel "${first}${rest}")
  endforeach()
  set(${out} "${camel}" PARENT_SCOPE)
endfunction()

set(WB_SCHEMA_DIR ${PROJECT_SOURCE_DIR}/schema)
set(WB_SCHEMA_OUT ${CMAKE_BINARY_DIR}/generated/schema)

# exit_codes.h: enum ExitCode { kExitOk = 0, ... } and kExitPrecedence (the order in which they outrank
# each other where several hold: the column precedence, 1 first), with worse_exit() over it.
wb_schema_rows(${WB_SCHEMA_DIR}/exit-codes.csv rows)
set(body "")
set(ranked "")
foreach(row IN LISTS rows)
  string(REGEX MATCH "^([0-9]+),([A-Za-z]+),([0-9]+)," _ "${row}")
  string(APPEND body "  kExit${CMAKE_MATCH_2} = ${CMAKE_MATCH_1},\n")
  list(APPEND ranked "${CMAKE_MATCH_3}:kExit${CMAKE_MATCH_2}")
endforeach()
list(SORT ranked COMPARE NATURAL)
list(TRANSFORM ranked REPLACE "^[0-9]+:" "")
list(JOIN ranked ", " precedence)
file(CONFIGURE OUTPUT ${WB_SCHEMA_OUT}/exit_codes.h CONTENT
"// generated from schema/exit-codes.csv by cmake/Schema.cmake: edit that file, not this one
#pragma once
namespace wb {
// Exit codes of every binary and of every wirebench command (docs/results.md).
enum ExitCode : int {
${body}};
// Where several hold, the first of these that does is the exit code.
inline constexpr ExitCode kExitPrecedence[] = {${precedence}};
// The one of two exit codes that outranks the other (kExitPrecedence).
inline constexpr int worse_exit(int a, int b) {
  for (ExitCode code : kExitPrecedence)
    if (a == code || b == code) return code;
  return a;
}
}  // namespace wb
")

# results_columns.h: kResultColumns in file order, enum class ResultColumn (kBench, kLinkClass, ...: one
# enumerator a column, so a switch over it that misses a new column does not compile) and which a
# reader refuses a file without.
wb_schema_rows(${WB_SCHEMA_DIR}/results-columns.csv rows)
set(body "")
set(enumerators "")
set(required "")
set(count 0)
foreach(row IN LISTS rows)
  string(REGEX MATCH "^([A-Za-z0-9_]+),([0-9]+),([a-z]+)" _ "${row}")
  set(name "${CMAKE_MATCH_1}")
  string(APPEND body "    \"${name}\",\n")
  string(COMPARE EQUAL "${CMAKE_MATCH_3}" "yes" is_required)
  if(is_required)
    string(APPEND required "    true,\n")
  else()
    string(APPEND required "    false,\n")
  endif()
  wb_camel("${name}" camel)
  string(APPEND enumerators "  k${camel},\n")
  math(EXPR count "${count} + 1")
endforeach()
file(CONFIGURE OUTPUT ${WB_SCHEMA_OUT}/results_columns.h CONTENT
"// generated from schema/results-columns.csv by cmake/Schema.cmake: edit that file, not this one
#pragma once
#include <array>
#include <cstddef>
#include <string_view>
namespace wb {
// results.csv's columns in file order.
inline constexpr std::array<std::string_view, ${count}> kResultColumns = {
${body}};
// Each column by name, its value its index in kResultColumns.
enum class ResultColumn : std::size_t {
${enumerators}};
// Whether a reader refuses a file whose header lacks the column.
inline constexpr std::array<bool, ${count}> kResultColumnRequired = {
${required}};
}  // namespace wb
")

# versions.h: k<Contract>SchemaVersion for every contract
wb_schema_rows(${WB_SCHEMA_DIR}/versions.csv rows)
set(body "")
foreach(row IN LISTS rows)
  string(REGEX MATCH "^([a-z]+),([0-9]+)," _ "${row}")
  string(SUBSTRING "${CMAKE_MATCH_1}" 0 1 first)
  string(SUBSTRING "${CMAKE_MATCH_1}" 1 -1 rest)
  string(TOUPPER "${first}" first)
  string(APPEND body "inline constexpr int k${first}${rest}SchemaVersion = ${CMAKE_MATCH_2};\n")
endforeach()
file(CONFIGURE OUTPUT ${WB_SCHEMA_OUT}/versions.h CONTENT
"// generated from schema/versions.csv by cmake/Schema.cmake: edit that file, not this one
#pragma once
namespace wb {
// The version each writer stamps on its file and each reader checks.
${body}}  // namespace wb
")

# endpoint_kinds.h: enum class EndpointKind and each kind's word, in schema/endpoints.csv's order
wb_schema_rows(${WB_SCHEMA_DIR}/endpoints.csv rows)
set(enumerators "")
set(words "")
set(count 0)
foreach(row IN LISTS rows)
  string(REGEX MATCH "^([a-z]+)," _ "${row}")
  string(SUBSTRING "${CMAKE_MATCH_1}" 0 1 first)
  string(SUBSTRING "${CMAKE_MATCH_1}" 1 -1 rest)
  string(TOUPPER "${first}" first)
  string(APPEND enumerators "  k${first}${rest},\n")
  string(APPEND words "    \"${CMAKE_MATCH_1}\",\n")
  math(EXPR count "${count} + 1")
endforeach()
file(CONFIGURE OUTPUT ${WB_SCHEMA_OUT}/endpoint_kinds.h CONTENT
"// generated from schema/endpoints.csv by cmake/Schema.cmake: edit that file, not this one
#pragma once
#include <array>
#include <string_view>
namespace wb {
// What a row's src or dst names on its node: NODE/<word>INDEX (harness/endpoint_name.h).
enum class EndpointKind {
${enumerators}};
inline constexpr std::array<std::string_view, ${count}> kEndpointWords = {
${words}};
}  // namespace wb
")

# judgements.h: enum class JudgedAt / JudgedAgainst and their words, in schema/judgements.csv's order
wb_schema_rows(${WB_SCHEMA_DIR}/judgements.csv rows)
foreach(part at against)
  set(enumerators_${part} "")
  set(words_${part} "")
  set(count_${part} 0)
endforeach()
foreach(row IN LISTS rows)
  string(REGEX MATCH "^([a-z]+),([a-z_]+)," _ "${row}")
  set(part ${CMAKE_MATCH_1})
  set(word ${CMAKE_MATCH_2})
  wb_camel("${word}" name)
  string(APPEND enumerators_${part} "  k${name},\n")
  string(APPEND words_${part} "    \"${word}\",\n")
  math(EXPR count_${part} "${count_${part}} + 1")
endforeach()
file(CONFIGURE OUTPUT ${WB_SCHEMA_OUT}/judgements.h CONTENT
"// generated from schema/judgements.csv by cmake/Schema.cmake: edit that file, not this one
#pragma once
#include <array>
#include <string_view>
namespace wb {
// Which size of a sweep a judgement takes (results.csv's `judged`: METRIC@AT:AGAINST).
enum class JudgedAt {
${enumerators_at}};
inline constexpr std::array<std::string_view, ${count_at}> kJudgedAtWords = {
${words_at}};
// What the figure is held against.
enum class JudgedAgainst {
${enumerators_against}};
inline constexpr std::array<std::string_view, ${count_against}> kJudgedAgainstWords = {
${words_against}};
}  // namespace wb
")
