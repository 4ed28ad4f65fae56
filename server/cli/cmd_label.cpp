// perftriage label [--json] --title T --body-file F [--labels a,b] [--taxonomy NAME|PATH] [--comment]
//                  [--repo owner/name] [--number N]
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/text.hpp"
#include "server/cli/args.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

namespace lb = perftriage::analyzers::labeler;

constexpr const char* kUsage =
    "usage: perftriage label [--json] --title T --body-file F [--labels a,b] [--taxonomy NAME|PATH] [--comment]\n"
    "                        [--repo owner/name] [--number N]\n"
    "  --body-file -   reads the body from standard input\n";

void print_table(const lb::LabelResult& r, std::ostream& out) {
  std::size_t w_axis = 4, w_value = 5;
  for (const auto& a : r.axes) {
    w_axis = std::max(w_axis, a.axis.size());
    w_value = std::max(w_value, a.value.size());
  }
  out << fmt::format("{:<{}}  {:<{}}  {}\n", "axis", w_axis, "value", w_value, "reason");
  for (const auto& a : r.axes) out << fmt::format("{:<{}}  {:<{}}  {}\n", a.axis, w_axis, a.value, w_value, a.reason);
  out << "\nlabels: " << (r.labels.empty() ? std::string("(none)") : lb::join(r.labels, ", ")) << "\n";
  out << "need_split: " << (r.need_split ? "yes" : "no") << "\n";
  out << "root cause: " << r.root_cause << "\n";
  out << "cases (" << r.cases.size() << "):\n";
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const auto& c = r.cases[i];
    out << fmt::format("  {}{}. {}", i + 1 == static_cast<std::size_t>(r.analyzed_case) ? "*" : " ", i + 1,
                       c.display());
    if (c.speedup) out << fmt::format(" (speedup {:.3f})", *c.speedup);
    if (!c.status.empty()) out << " (" << c.status << ")";
    out << "\n";
  }
}

}  // namespace

int cmd_label(const Args& args, std::ostream& out, std::ostream& err) {
  auto parsed = parse_args(args, {"title", "body-file", "labels", "taxonomy", "repo", "number"},
                           {"json", "comment", "help"});
  if (!parsed) {
    err << "perftriage label: " << parsed.error().message << "\n" << kUsage;
    return 2;
  }
  const auto& a = parsed.value();
  if (a.has("help")) {
    out << kUsage;
    return 0;
  }
  auto title = a.get("title");
  auto body_file = a.get("body-file");
  if (!title || !body_file || !a.positionals.empty()) {
    err << "perftriage label: --title and --body-file are required\n" << kUsage;
    return 2;
  }
  lb::IssueInput issue;
  issue.title = *title;
  {
    std::stringstream ss;
    if (*body_file == "-") {
      ss << std::cin.rdbuf();
    } else {
      std::ifstream in(*body_file, std::ios::binary);
      if (!in) {
        err << "perftriage label: cannot read " << *body_file << "\n";
        return 1;
      }
      ss << in.rdbuf();
    }
    issue.body = ss.str();
  }
  for (const auto& list : a.all("labels"))
    for (const auto& l : lb::split(list, ','))
      if (auto t = lb::trim(l); !t.empty()) issue.labels.emplace_back(t);
  auto taxonomy = lb::load_taxonomy(a.get_or("taxonomy", "torch-xpu-ops"));
  if (!taxonomy) {
    err << "perftriage label: " << taxonomy.error().message << "\n";
    return 1;
  }
  issue.repo = a.get_or("repo", taxonomy->repo);
  if (auto n = a.get("number")) {
    try {
      issue.number = std::stoll(*n);
    } catch (const std::exception&) {
      err << "perftriage label: --number needs an integer\n" << kUsage;
      return 2;
    }
  }
  auto result = lb::label_issue(issue, *taxonomy);
  if (a.has("json")) {
    auto j = lb::to_json(result);
    if (a.has("comment")) j["comment"] = lb::render_comment(issue, result);
    out << j.dump(2) << "\n";
  } else if (a.has("comment")) {
    out << lb::render_comment(issue, result);
  } else {
    print_table(result, out);
  }
  return 0;
}

}  // namespace perftriage::cli
