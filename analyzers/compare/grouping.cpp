#include "analyzers/compare/grouping.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

#include "common/strings.hpp"

namespace perftriage::analyzers::compare {
namespace {

// The distinct values, comma-separated; an empty value (an axis a case does not state) is not listed.
std::string listed(std::set<std::string> values) {
  values.erase(std::string());
  return join(values, ", ");
}

template <class KeyFn>
std::map<std::string, std::vector<std::size_t>> group_by(const std::vector<CaseKey>& cases, KeyFn key) {
  std::map<std::string, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string k = key(cases[i]);
    if (!k.empty()) out[k].push_back(i);
  }
  return out;
}

std::vector<CaseKey> pick(const std::vector<CaseKey>& cases, const std::vector<std::size_t>& idx) {
  std::vector<CaseKey> out;
  for (auto i : idx) out.push_back(cases[i]);
  return out;
}

std::set<std::string> distinct(const std::vector<CaseKey>& cases, const std::vector<std::size_t>& idx,
                               std::string CaseKey::*field) {
  std::set<std::string> out;
  for (auto i : idx) out.insert(cases[i].*field);
  return out;
}

}  // namespace

std::map<std::string, std::string> shared_axes(const std::vector<CaseKey>& cases) {
  std::map<std::string, std::string> out;
  if (cases.empty()) return out;
  const std::pair<const char*, std::string CaseKey::*> axes[] = {{"suite", &CaseKey::suite},
                                                                 {"dtype", &CaseKey::dtype},
                                                                 {"mode", &CaseKey::mode},
                                                                 {"config", &CaseKey::config},
                                                                 {"model", &CaseKey::model}};
  for (const auto& axis : axes) {
    // Not a structured binding: a lambda may capture one only from C++20's P1091 on (clang >= 16; the fuzz preset
    // builds with Debian's clang 14).
    const auto field = axis.second;
    const std::string& first = cases.front().*field;
    const bool all = std::all_of(cases.begin(), cases.end(), [&](const CaseKey& c) { return c.*field == first; });
    if (all) out.emplace(axis.first, first);
  }
  return out;
}

std::string task_head(std::string_view model) {
  for (std::size_t at = model.find("For"); at != std::string_view::npos; at = model.find("For", at + 1)) {
    if (at > 0 && at + 3 < model.size() && std::isupper(static_cast<unsigned char>(model[at + 3]))) {
      return std::string(model.substr(at));
    }
  }
  return {};
}

std::string model_family(std::string_view model) {
  if (const auto head = task_head(model); !head.empty())
    return std::string(model.substr(0, model.size() - head.size()));
  std::size_t end = 0;
  while (end < model.size() && std::isalpha(static_cast<unsigned char>(model[end]))) ++end;
  return std::string(model.substr(0, end == 0 ? model.size() : end));
}

std::vector<Pattern> find_patterns(const std::vector<CaseKey>& cases, std::size_t min_members) {
  std::vector<Pattern> out;
  const std::size_t floor = std::max<std::size_t>(min_members, 2);
  auto add = [&](std::string kind, std::string label, std::vector<std::size_t> members) {
    if (members.size() < floor) return;
    out.push_back({std::move(kind), std::move(label), shared_axes(pick(cases, members)), std::move(members)});
  };
  const char sep = '\x1f';
  for (auto& [k, idx] : group_by(cases, [&](const CaseKey& c) { return c.suite + sep + c.config + sep + c.model; })) {
    const auto dtypes = distinct(cases, idx, &CaseKey::dtype);
    const auto modes = distinct(cases, idx, &CaseKey::mode);
    if (dtypes.size() < 2 && modes.size() < 2) continue;
    const CaseKey& c = cases[idx.front()];
    add("model_across_dtypes", c.model + " (" + c.suite + " " + listed(modes) + "): " + listed(dtypes), idx);
  }
  for (auto& [k, idx] : group_by(cases, [&](const CaseKey& c) { return c.suite + sep + model_family(c.model); })) {
    const auto models = distinct(cases, idx, &CaseKey::model);
    if (models.size() < 2) continue;
    const CaseKey& c = cases[idx.front()];
    add("family", model_family(c.model) + " family (" + c.suite + "): " + listed(models), idx);
  }
  for (auto& [k, idx] : group_by(cases, [&](const CaseKey& c) {
         const auto head = task_head(c.model);
         return head.empty() ? std::string{} : c.suite + sep + head;
       })) {
    const auto models = distinct(cases, idx, &CaseKey::model);
    if (models.size() < 2) continue;
    const CaseKey& c = cases[idx.front()];
    add("task_head", "*" + task_head(c.model) + " models (" + c.suite + "): " + listed(models), idx);
  }
  for (auto& [k, idx] : group_by(cases, [&](const CaseKey& c) { return c.suite + sep + c.mode; })) {
    const CaseKey& c = cases[idx.front()];
    add("suite_mode", c.suite + " " + c.mode + ": " + std::to_string(idx.size()) + " cases", idx);
  }
  auto rank = [](const std::string& kind) {
    return kind == "model_across_dtypes" ? 0 : kind == "family" ? 1 : kind == "task_head" ? 2 : 3;
  };
  std::stable_sort(out.begin(), out.end(), [&](const Pattern& a, const Pattern& b) {
    return std::make_tuple(rank(a.kind), b.members.size(), a.label) <
           std::make_tuple(rank(b.kind), a.members.size(), b.label);
  });
  return out;
}

}  // namespace perftriage::analyzers::compare
