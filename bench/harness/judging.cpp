#include "harness/judging.h"

namespace wb {

std::string judged_text(const std::vector<Judgement>& judgements) {
  std::string text;
  for (const Judgement& j : judgements) {
    if (!text.empty()) text += ' ';
    text += std::string(j.metric) + '@' + std::string(kJudgedAtWords[static_cast<int>(j.at)]) + ':' +
            std::string(kJudgedAgainstWords[static_cast<int>(j.against)]);
  }
  return text;
}

Judgement bandwidth_against_ceiling(std::string_view metric) {
  return {metric, JudgedAt::kLargest, JudgedAgainst::kCeiling};
}

Judgement bandwidth_against_siblings(std::string_view metric) {
  return {metric, JudgedAt::kLargest, JudgedAgainst::kSiblings};
}

Judgement time_against_siblings() { return {"time_us", JudgedAt::kSmallest, JudgedAgainst::kSiblings}; }

Judgement latency_against_typical() { return {"time_us", JudgedAt::kSmallest, JudgedAgainst::kTypicalLatency}; }

std::string transfer_judged(double bytes_per_op, std::string_view bandwidth_metric) {
  return judged_text({bytes_per_op > 0 ? bandwidth_against_ceiling(bandwidth_metric) : time_against_siblings()});
}

std::string shell_join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out += ' ';
    const bool plain = !word.empty() && word.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_") == std::string::npos;
    if (plain) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word) out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    out += '\'';
  }
  return out;
}

}  // namespace wb
