// to_json and the triage comment in the seed's shape.
#include <fmt/format.h>

#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/text.hpp"

namespace perftriage::analyzers::labeler {
namespace {

std::string cell_text(std::string s) {
  for (std::size_t pos = 0; (pos = s.find('|', pos)) != std::string::npos; pos += 2) s.replace(pos, 1, "\\|");
  for (auto& ch : s)
    if (ch == '\n') ch = ' ';
  return s;
}

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::string case_line(const ParsedCase& c, bool first) {
  std::string s;
  if (!c.test_id.empty()) {
    s = c.test_id;
  } else {
    std::vector<std::string> parts;
    for (const auto* p : {&c.suite, &c.model, &c.mode, &c.dtype})
      if (!p->empty()) parts.push_back(*p);
    s = join(parts, " ");
  }
  if (c.speedup)
    s += first ? " (speedup " + format_number(*c.speedup) + ")" : " (" + format_number(*c.speedup) + ")";
  else if (!c.status.empty())
    s += " (" + c.status + ")";
  else if (c.inductor_ratio || c.eager_ratio) {
    std::vector<std::string> r;
    if (c.inductor_ratio) r.push_back("inductor ratio " + format_number(*c.inductor_ratio));
    if (c.eager_ratio) r.push_back("eager ratio " + format_number(*c.eager_ratio));
    s += " (" + join(r, ", ") + ")";
  }
  return s;
}

}  // namespace

nlohmann::json to_json(const ParsedCase& c) {
  return {{"suite", c.suite},
          {"dtype", c.dtype},
          {"mode", c.mode},
          {"model", c.model},
          {"test_id", c.test_id},
          {"speedup", opt(c.speedup)},
          {"inductor_ratio", opt(c.inductor_ratio)},
          {"eager_ratio", opt(c.eager_ratio)},
          {"status", c.status},
          {"error", c.error},
          {"e2e", c.e2e},
          {"name", c.display()},
          {"text", c.text}};
}

namespace {

// A row; "p" (the calibrated probability) only where the tiered layer set one.
nlohmann::json row_json(const AxisRow& a) {
  nlohmann::json out{{"axis", a.axis}, {"value", a.value}, {"reason", a.reason}, {"layer", to_string(a.layer)}};
  if (a.p) out["p"] = *a.p;
  return out;
}

}  // namespace

nlohmann::json to_json(const LabelResult& r) {
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : r.axes) axes.push_back(row_json(a));
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : r.cases) cases.push_back(to_json(c));
  std::string analyzed_name;
  if (r.analyzed_case > 0 && static_cast<std::size_t>(r.analyzed_case) <= r.cases.size())
    analyzed_name = r.cases[static_cast<std::size_t>(r.analyzed_case - 1)].display();
  nlohmann::json out = {
      {"axes", axes},
      {"labels", r.labels},
      {"cases", cases},
      {"analyzed_case", r.analyzed_case},  // 1-based; 0 = no case
      {"analyzed_case_name", analyzed_name},
      {"case_count", r.cases.size()},
      {"need_split", r.need_split},
      {"root_cause", r.root_cause},
      {"truncated", {{"title", r.truncated.title}, {"body", r.truncated.body}, {"labels", r.truncated.labels}}}};
  // Only when the gate withheld something: the answers of a labeler without gates stay as they were.
  if (!r.withheld.empty()) {
    out["withheld"] = nlohmann::json::array();
    for (const auto& a : r.withheld) out["withheld"].push_back(row_json(a));
  }
  if (!r.suggested.empty()) {
    out["suggested"] = nlohmann::json::array();
    for (const auto& a : r.suggested) out["suggested"].push_back(row_json(a));
  }
  return out;
}

std::string render_comment(const IssueInput& issue, const LabelResult& r) {
  std::string out;
  out += kCommentMarker;
  out += "\n<details>\n<summary>perftriage: ";
  out += r.labels.empty() ? std::string("no labels")
                          : fmt::format("{} label{}", r.labels.size(), r.labels.size() == 1 ? "" : "s");
  out += r.need_split ? ", need_split" : "";
  out += "</summary>\n\n";
  out += fmt::format("label-issue: {}#{}\n\n", issue.repo, issue.number);
  out += "Root cause: " + r.root_cause + "\n\n";
  if (r.analyzed_case > 0) {
    const auto& c = r.cases[static_cast<std::size_t>(r.analyzed_case - 1)];
    auto n = r.cases.size();
    out += fmt::format("Analyzed case: {} (case {} of {}", c.display(), r.analyzed_case, n);
    if (n > 1) out += fmt::format("; the other {} not analyzed", n - 1);
    out += ")\n\n";
  } else {
    out += "Analyzed case: none (no test case found in the issue)\n\n";
  }
  out += "| axis | value | reason |\n| --- | --- | --- |\n";
  for (const auto& a : r.axes)
    out += fmt::format("| {} | {} | {} |\n", a.axis, cell_text(a.value), cell_text(a.reason));
  out += fmt::format("\nTest cases ({}):\n", r.cases.size());
  for (std::size_t i = 0; i < r.cases.size(); ++i) out += "- " + case_line(r.cases[i], i == 0) + "\n";
  if (!r.suggested.empty()) {
    out +=
        "\nSuggested, not applied (the evidence is a word in the description):\n\n| axis | value | reason |\n"
        "| --- | --- | --- |\n";
    for (const auto& a : r.suggested)
      out += fmt::format("| {} | {} | {} |\n", a.axis, cell_text(a.value), cell_text(a.reason));
  }
  if (!r.labels.empty()) {
    out += "\nLabels: ";
    for (std::size_t i = 0; i < r.labels.size(); ++i) out += (i ? ", `" : "`") + r.labels[i] + "`";
    out += "\n";
  }
  if (r.truncated.any()) {
    std::vector<std::string> cut;
    if (r.truncated.title) cut.emplace_back("title");
    if (r.truncated.body) cut.emplace_back("body");
    if (r.truncated.labels) cut.emplace_back("labels");
    out += "\nNote: the issue's " + join(cut, ", ") + " exceeded the labeler's limits and " +
           (cut.size() == 1 && cut[0] != "labels" ? "was" : "were") + " truncated before labeling.\n";
  }
  out += "\nGenerated by perftriage label.\n</details>\n";
  return out;
}

}  // namespace perftriage::analyzers::labeler
