// [[tracking]] and [[github.repos]]: arrays of tables, each table one record (TrackingPolicy, RepoSettings). A record's
// keys are described once, as a list of Fields (the key, the member its value goes to, whose type is the value's
// type, and the rule a string follows), and read by one loop: a key not in the list, a value of the wrong type or
// one breaking its rule is reported at its place, and a table with any mistake is not applied.
#include "server/app/config_arrays.hpp"

#include <algorithm>
#include <span>
#include <variant>
#include <vector>

#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/taxonomy.hpp"
#include "server/app/label_evidence.hpp"

namespace perftriage::server::config::detail {
namespace {

// A string of a record, or each string of an array: "" = fine, else why not ("must be \"owner/name\"").
using StringRule = std::string (*)(const std::string&);

// One key of a record R. The member's type says what the value must be: a non-empty string, a non-empty array of
// non-empty strings, an integer from min to max, or true / false.
template <class R>
struct Field {
  std::string_view key;
  std::variant<std::string R::*, std::vector<std::string> R::*, std::int64_t R::*, bool R::*,
               std::optional<analyzers::labeler::Layers> R::*>
      to;
  StringRule rule = nullptr;
  std::int64_t min = 0;
  std::int64_t max = 0;
};

// One mistake in a value, at the value: "[[tracking]] runs " + why.
struct Complaint {
  const ErrorAt& error;
  Where at;
  std::string prefix;
  void operator()(const std::string& why) const { error(at, prefix + why); }
};

template <class F>
bool read_value(const toml::node& n, std::string& out, const F& f, const Complaint& bad) {
  const auto* v = n.as_string();
  if (!v || v->get().empty()) {
    bad("must be a non-empty string");
    return false;
  }
  if (auto why = f.rule ? f.rule(v->get()) : std::string(); !why.empty()) {
    bad(why);
    return false;
  }
  out = v->get();
  return true;
}

// The strings that are strings and not empty are kept even beside a mistake: a record's own checks (repo and
// platforms present) then see what was given, as they always have.
template <class F>
bool read_value(const toml::node& n, std::vector<std::string>& out, const F& f, const Complaint& bad) {
  const auto* a = n.as_array();
  out.clear();
  for (std::size_t i = 0; a && i < a->size(); ++i) {
    if (const auto* v = a->get(i)->as_string(); v && !v->get().empty()) out.push_back(v->get());
  }
  bool ok = true;
  if (!a || out.size() != a->size() || out.empty()) {
    bad("must be a non-empty array of strings");
    ok = false;
  }
  for (const auto& s : out) {
    if (auto why = f.rule ? f.rule(s) : std::string(); !why.empty()) {
      bad(why);
      ok = false;
    }
  }
  return ok;
}

template <class F>
bool read_value(const toml::node& n, std::int64_t& out, const F& f, const Complaint& bad) {
  const auto* v = n.as_integer();
  if (!v || v->get() < f.min || v->get() > f.max) {
    bad("must be an integer from " + std::to_string(f.min) + " to " + std::to_string(f.max));
    return false;
  }
  out = v->get();
  return true;
}

template <class F>
bool read_value(const toml::node& n, std::optional<analyzers::labeler::Layers>& out, const F& /*f*/,
                const Complaint& bad) {
  const auto* v = n.as_string();
  const auto layers = v ? analyzers::labeler::layers_from_name(v->get()) : std::nullopt;
  if (!layers) {
    bad(v && !v->get().empty() ? "must be " + analyzers::labeler::layers_names_text()
                               : std::string("must be a non-empty string"));
    return false;
  }
  out = layers;
  return true;
}

template <class F>
bool read_value(const toml::node& n, bool& out, const F& /*f*/, const Complaint& bad) {
  const auto* v = n.as_boolean();
  if (!v) {
    bad("must be true or false");
    return false;
  }
  out = v->get();
  return true;
}

// One table into `record`, every key through `fields`; false when any key had a mistake (each reported).
template <class R>
bool read_record(const toml::table& t, std::string_view what, std::span<const Field<R>> fields, R& record,
                 const ErrorAt& error) {
  bool ok = true;
  for (const auto& entry : t) {
    const toml::key& key = entry.first;  // not a structured binding: clang 14 cannot capture one in a lambda
    const toml::node& value = entry.second;
    const auto f = std::find_if(fields.begin(), fields.end(), [&](const Field<R>& x) { return x.key == key.str(); });
    if (f == fields.end()) {
      std::string keys;
      for (const auto& x : fields) keys += (keys.empty() ? "" : ", ") + std::string(x.key);
      error(where(key.source()),
            "unknown key '" + std::string(key.str()) + "' in " + std::string(what) + "; the keys are " + keys);
      ok = false;
      continue;
    }
    const Complaint bad{error, where(value.source()), std::string(what) + " " + std::string(f->key) + " "};
    ok = std::visit([&](auto member) { return read_value(value, record.*member, *f, bad); }, f->to) && ok;
  }
  return ok;
}

// Each table of the array `node` to `read`; `not_tables` when the node is not an array of tables.
template <class Read>
void each_table(const toml::node& node, const char* not_tables, const ErrorAt& error, Read read) {
  const auto* array = node.as_array();
  if (!array || !array->is_array_of_tables()) {
    error(where(node.source()), not_tables);
    return;
  }
  for (const auto& element : *array) read(*element.as_table());
}

std::string taxonomy_rule(const std::string& s) {
  return analyzers::labeler::load_taxonomy(s) ? "" : "names no taxonomy (torch-xpu-ops, pytorch)";
}

std::string tracking_repo_rule(const std::string& s) {
  return std::count(s.begin(), s.end(), '/') == 1 ? "" : "must be \"owner/name\"";
}
std::string runs_rule(const std::string& s) {
  if (s.rfind("tag:", 0) == 0 || s.rfind("key:", 0) == 0) return "";
  return "must be \"tag:GLOB\" (over run tags) or \"key:GLOB\" (over run keys)";
}
std::string kind_rule(const std::string& s) {
  return s == "slow" || s == "regressions" ? "" : "are \"slow\" and \"regressions\", not \"" + s + "\"";
}

// The keys of a [[tracking]] table, in the order the error for an unknown key lists them.
const Field<TrackingPolicy> kTrackingFields[] = {
    {"repo", &TrackingPolicy::repo, tracking_repo_rule},
    {"platforms", &TrackingPolicy::platforms},
    {"runs", &TrackingPolicy::runs, runs_rule},
    {"kinds", &TrackingPolicy::kinds, kind_rule},
    {"taxonomy", &TrackingPolicy::taxonomy, taxonomy_rule},
    {"settle_seconds", &TrackingPolicy::settle_seconds, nullptr, 0, 86400},
};

std::string repo_rule(const std::string& s) {
  const bool ok = std::count(s.begin(), s.end(), '/') == 1 && s.front() != '/' && s.back() != '/';
  return ok ? "" : "must be \"owner/name\"";
}
std::string model_rule(const std::string& s) { return check_label_model(Value(s)); }

// The keys of a [[github.repos]] table, in the order the error for an unknown key lists them.
const Field<RepoSettings> kRepoFields[] = {
    {"repo", &RepoSettings::repo, repo_rule},
    {"taxonomy", &RepoSettings::taxonomy, taxonomy_rule},
    {"label_layers", &RepoSettings::label_layers},
    {"label_model", &RepoSettings::label_model, model_rule},
    {"label", &RepoSettings::label},
    {"comment", &RepoSettings::comment},
    {"tracking", &RepoSettings::tracking},
    {"checks", &RepoSettings::checks},
};

}  // namespace

void apply_tracking(const toml::node& node, Settings& settings, const ErrorAt& error) {
  each_table(node, "tracking policies are [[tracking]] tables, one per policy", error, [&](const toml::table& t) {
    TrackingPolicy p;
    bool ok = read_record<TrackingPolicy>(t, "[[tracking]]", kTrackingFields, p, error);
    if (p.repo.empty() || p.platforms.empty()) {
      error(where(t.source()), "[[tracking]] needs repo and platforms");
      ok = false;
    }
    if (ok) settings.tracking.push_back(std::move(p));
  });
}

void apply_github_repos(const toml::node& node, Settings& settings, const ErrorAt& error) {
  each_table(node, "[github] repos are [[github.repos]] tables, one per repository", error, [&](const toml::table& t) {
    RepoSettings r;
    bool ok = read_record<RepoSettings>(t, "[[github.repos]]", kRepoFields, r, error);
    const bool listed = find_repo(settings.github.repos, r.repo) != nullptr;
    if (r.repo.empty() || listed) {
      error(where(t.source()),
            r.repo.empty() ? "[[github.repos]] needs repo" : "[[github.repos]] lists " + r.repo + " twice");
      ok = false;
    }
    if (ok) settings.github.repos.push_back(std::move(r));
  });
}

void check_tracking_repos(const Settings& settings, const ErrorAt& error) {
  if (settings.github.repos.empty()) return;
  for (const auto& p : settings.tracking) {
    if (!find_repo(settings.github.repos, p.repo))
      error(Where{}, "[[tracking]] repo " + p.repo + " is not in [[github.repos]]: add it there");
  }
}

}  // namespace perftriage::server::config::detail
