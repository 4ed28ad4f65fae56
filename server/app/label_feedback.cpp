#include "server/app/label_feedback.hpp"

#include <map>
#include <utility>

#include "analyzers/labeler/eval.hpp"
#include "analyzers/labeler/taxonomy.hpp"
#include "schema/label_feedback_store.hpp"
#include "server/app/label_evidence.hpp"

namespace perftriage::server {
namespace {

namespace lb = analyzers::labeler;
using nlohmann::json;

// The taxonomy each repository is labeled with, loaded once per call (a repository the settings no longer list keeps
// [github]'s, which is what it was labeled with unless its table named another).
class Taxonomies {
 public:
  explicit Taxonomies(const GitHubSettings& gh) : gh_(gh) {}
  Result<const lb::Taxonomy*> of(const std::string& repo) {
    const auto settings = repo_settings(gh_, repo);
    const std::string name = settings ? settings->taxonomy : gh_.taxonomy;
    auto it = loaded_.find(name);
    if (it == loaded_.end()) {
      PT_ASSIGN(auto taxonomy, lb::load_taxonomy(name));
      it = loaded_.emplace(name, std::move(taxonomy)).first;
    }
    return &it->second;
  }

 private:
  const GitHubSettings& gh_;
  std::map<std::string, lb::Taxonomy> loaded_;
};

using RepoLabel = std::pair<std::string, std::string>;

Result<std::map<RepoLabel, std::int64_t>> suggested_then_added(schema::Database& db, std::string_view repo) {
  PT_ASSIGN(const auto corrections, schema::label_corrections(db, repo));
  std::map<RepoLabel, std::int64_t> out;
  for (const auto& c : corrections)
    if (c.added && c.suggested) ++out[{c.repo, c.label}];
  return out;
}

json or_null(std::optional<double> v) { return v ? json(*v) : json(); }

}  // namespace

std::optional<double> LabelFeedback::precision_kept() const {
  if (applied() == 0) return std::nullopt;
  return static_cast<double>(kept) / static_cast<double>(applied());
}

Result<std::vector<LabelFeedback>> label_feedback(schema::Database& db, const GitHubSettings& gh,
                                                  std::string_view repo) {
  PT_ASSIGN(const auto outcomes, schema::label_outcomes(db, repo));
  PT_ASSIGN(const auto suggested, suggested_then_added(db, repo));
  Taxonomies taxonomies(gh);
  std::vector<LabelFeedback> out;
  for (const auto& o : outcomes) {
    PT_ASSIGN(const lb::Taxonomy* taxonomy, taxonomies.of(o.repo));
    const auto known = lb::tracker_label(*taxonomy, o.label);
    LabelFeedback row{o.repo, o.label, known ? known->first : std::string(), o.kept, o.removed};
    if (known) {
      row.added = o.added;
      const auto it = suggested.find({o.repo, o.label});
      row.suggested_then_added = it == suggested.end() ? 0 : it->second;
    }
    if (row.applied() + row.added > 0) out.push_back(std::move(row));
  }
  return out;
}

json to_json(const LabelFeedback& row) {
  return {{"repo", row.repo},
          {"label", row.label},
          {"axis", row.axis.empty() ? json() : json(row.axis)},
          {"applied", row.applied()},
          {"kept", row.kept},
          {"removed", row.removed},
          {"added", row.added},
          {"suggested_then_added", row.suggested_then_added},
          {"precision_kept", or_null(row.precision_kept())}};
}

json feedback_totals(const std::vector<LabelFeedback>& rows) {
  LabelFeedback all;
  for (const auto& r : rows) {
    all.kept += r.kept;
    all.removed += r.removed;
    all.added += r.added;
    all.suggested_then_added += r.suggested_then_added;
  }
  return {{"applied", all.applied()},
          {"kept", all.kept},
          {"removed", all.removed},
          {"added", all.added},
          {"suggested_then_added", all.suggested_then_added},
          {"precision_kept", or_null(all.precision_kept())}};
}

}  // namespace perftriage::server
