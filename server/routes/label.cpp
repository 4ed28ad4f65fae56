// POST /api/v1/label: the labeler over HTTP, backed by the database's measurements.
// GET /api/v1/issues: the issues the bot labeled, with their axes and reasons (the dashboard).
#include <algorithm>

#include "analyzers/labeler/labeler.hpp"
#include "common/bounded_json.hpp"
#include "schema/bot_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/label_evidence.hpp"
#include "server/app/label_retrain.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;
namespace lb = analyzers::labeler;

// An issue is at most 256 + 65,536 characters on GitHub; a taxonomy object rides along. 1 MiB covers both.
constexpr std::size_t kMaxLabelRequestBytes = 1u << 20;

Error bad(std::string code, std::string message, std::string field = {}) {
  return make_error(ErrorKind::invalid_input, std::move(code), std::move(message), {}, 0, std::move(field));
}

// Over HTTP a taxonomy is a built-in name or an inline JSON object, never a path on the server. Without one the
// request gets the bot's for its repository (`bot`: its taxonomy, with the model retrained for it or its label_model),
// so the answer is what the bot would say.
Result<lb::Taxonomy> request_taxonomy(const json& spec, schema::Database& db, const std::string& repo,
                                      const RepoSettings& bot) {
  if (spec.is_null()) return repo_taxonomy(db, repo, bot.taxonomy, bot.label_model);
  if (spec.is_object()) return lb::parse_taxonomy(spec);
  if (!spec.is_string()) return bad("bad_taxonomy", "taxonomy is a built-in name or a JSON object", "taxonomy");
  const auto names = lb::builtin_taxonomies();
  const auto name = spec.get<std::string>();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    return bad("unknown_taxonomy", "unknown taxonomy '" + name + "'", "taxonomy");
  }
  return lb::load_taxonomy(name);
}

Result<lb::IssueInput> read_issue(const json& j) {
  if (!j.is_object()) return bad("bad_json", "the body must be a JSON object");
  lb::IssueInput in;
  if (!j.contains("title") || !j["title"].is_string() || j["title"].get_ref<const std::string&>().empty()) {
    return bad("missing_title", "\"title\" (a non-empty string) is required", "title");
  }
  in.title = j["title"].get<std::string>();
  if (j.contains("body") && !j["body"].is_null()) {
    if (!j["body"].is_string()) return bad("bad_body", "\"body\" must be a string", "body");
    in.body = j["body"].get<std::string>();
  }
  if (j.contains("labels") && !j["labels"].is_null()) {
    if (!j["labels"].is_array()) return bad("bad_labels", "\"labels\" must be an array of strings", "labels");
    for (const auto& l : j["labels"]) {
      if (!l.is_string()) return bad("bad_labels", "\"labels\" must be an array of strings", "labels");
      in.labels.push_back(l.get<std::string>());
    }
  }
  if (j.contains("repo") && !j["repo"].is_null()) {
    if (!j["repo"].is_string()) return bad("bad_repo", "\"repo\" must be \"owner/name\"", "repo");
    in.repo = j["repo"].get<std::string>();
  }
  if (j.contains("number") && !j["number"].is_null()) {
    if (!j["number"].is_number_integer()) return bad("bad_number", "\"number\" must be an integer", "number");
    in.number = j["number"].get<std::int64_t>();
  }
  return in;
}

// "layers": rules, model, both, gated or tiered (docs/labeler-eval.md); without it, the bot's label_layers.
Result<lb::Layers> request_layers(const json& spec, const RepoSettings& bot) {
  if (spec.is_null()) return bot.label_layers.value_or(lb::Layers::both);
  const auto* name = spec.get_ptr<const std::string*>();
  const auto layers = name ? lb::layers_from_name(*name) : std::nullopt;
  if (!layers) return bad("bad_layers", "\"layers\" must be " + lb::layers_names_text(), "layers");
  return *layers;
}

Result<ApiResponse> label(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const json j, parse_bounded_json(req.bytes(), "label request", JsonLimits::bytes(kMaxLabelRequestBytes)));
  PT_ASSIGN(auto issue, read_issue(j));
  const GitHubSettings& gh = app.settings().github;
  // A repository [[github.repos]] lists gets its own settings; any other, [github]'s.
  const RepoSettings bot = repo_settings(gh, issue.repo).value_or(github_defaults(gh, issue.repo));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto taxonomy, request_taxonomy(j.value("taxonomy", json()), store->db(), issue.repo, bot));
  lb::LabelSettings settings;
  PT_ASSIGN(settings.layers, request_layers(j.value("layers", json()), bot));
  if (issue.repo.empty()) issue.repo = taxonomy.repo;
  PT_ASSIGN(auto result, label_with_evidence(*store, issue, taxonomy, settings));
  json out = lb::to_json(result);
  out["comment"] = lb::render_comment(issue, result);
  return json_response(200, out);
}

Result<ApiResponse> list_issues(const ApiRequest& req, AppContext& app) {
  std::int64_t limit = 500;
  if (auto l = req.q("limit"); !l.empty()) {
    try {
      limit = std::stoll(l);
    } catch (const std::exception&) {
      limit = -1;
    }
    if (limit <= 0) return bad("bad_limit", "limit must be a positive integer", "limit");
  }
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto issues, schema::labeled_issues(store->db(), limit));
  json out = json::array();
  for (const auto& i : issues) out.push_back(schema::to_json(i));
  return json_response(200, {{"issues", out}});
}

}  // namespace

void register_label_routes(Router& router) {
  // Computes and stores nothing: a read (public by default), JSON only.
  router.add("POST", "/api/v1/label", label,
             RouteOptions::on(Lane::compute, kMaxLabelRequestBytes)
                 .require(Scope::read)
                 .accept({"application/json"})
                 .params({}));
  router.add("GET", "/api/v1/issues", list_issues, RouteOptions{}.params({"limit"}));
}

}  // namespace perftriage::server
