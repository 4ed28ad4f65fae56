#pragma once
// Data-backed labeling: an EvidenceLookup over the store. A parsed E2E case (suite / dtype / mode / model) is looked up
// in the latest run of the issue's platform that has it; the evidence is the stored speedup (the text as written in
// the CSV is cited), the latency ratios against the previous run of that platform, and the trace classifiers' verdicts
// on the case's artifacts in that run.
#include <optional>
#include <string>
#include <string_view>

#include "analyzers/labeler/labeler.hpp"
#include "schema/store.hpp"
#include "server/app/settings.hpp"

namespace perftriage::server {

// The taxonomy the bot labels with (`name`: a built-in or a file), with the learned layer `label_model` names (a
// repository's, or [github]'s: "" the taxonomy's own, "none" rules only, else a model file).
Result<analyzers::labeler::Taxonomy> bot_taxonomy(const std::string& name, const std::string& label_model);

// What the bot may do in `repo`, with [github]'s taxonomy, layers and model filled in where the repository's table
// leaves them out (label_layers is always set); nullopt when [[github.repos]] lists other repositories but not this one
// (the bot does nothing there). With no list every repository is served with [github]'s settings.
std::optional<RepoSettings> repo_settings(const GitHubSettings& gh, std::string_view repo);
// [github]'s settings for `repo`, whatever [[github.repos]] lists: what a repository without a table of its own gets.
RepoSettings github_defaults(const GitHubSettings& gh, std::string_view repo);
// The table of `repo` in [[github.repos]] (any case), nullptr when it has none.
const RepoSettings* find_repo(const std::vector<RepoSettings>& repos, std::string_view repo);

// `platform` "" = any platform, else any spelling of it. The lookup borrows `store`: use it while the store lives.
analyzers::labeler::EvidenceLookup make_evidence_lookup(schema::Store& store, std::string platform);

// The platform the issue is about: its hw axis' key ("hw: BMG" -> "BMG"), "" when the labeler found none.
std::string issue_platform(const analyzers::labeler::LabelResult& result, const analyzers::labeler::Taxonomy& taxonomy);

// Labels once from the text to learn the platform, then again with the database's evidence for that platform.
// Each pass runs within `settings.cpu_budget` (and the input caps): over it, an unprocessable
// `label_budget_exceeded` error instead of a result.
Result<analyzers::labeler::LabelResult> label_with_evidence(schema::Store& store,
                                                            const analyzers::labeler::IssueInput& issue,
                                                            const analyzers::labeler::Taxonomy& taxonomy,
                                                            const analyzers::labeler::LabelSettings& settings);
// The same without a CPU budget (trusted callers: the CLI, the tracking issues and tests).
analyzers::labeler::LabelResult label_with_evidence(
    schema::Store& store, const analyzers::labeler::IssueInput& issue, const analyzers::labeler::Taxonomy& taxonomy,
    analyzers::labeler::Layers layers = analyzers::labeler::Layers::both);

}  // namespace perftriage::server
