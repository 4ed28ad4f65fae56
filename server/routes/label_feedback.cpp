// GET /api/v1/issues/labels?repo=: what maintainers did to the bot's labels, per repository and label (kept, removed,
// added by hand, of which suggested; the share kept) and over all of them (server/app/label_feedback.hpp).
// A resource of its own rather than a field of GET /api/v1/issues: that one pages the newest labeled issues
// (`limit`), while these counts cover every issue the bot ever labeled, and neither answer should grow by the other.
#include "server/app/app_context.hpp"
#include "server/app/label_feedback.hpp"
#include "server/app/label_retrain.hpp"
#include "server/bot/github_names.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

Result<ApiResponse> get_label_feedback(const ApiRequest& req, AppContext& app) {
  const std::string repo = req.q("repo");
  if (!repo.empty() && !is_github_repo(repo)) {
    return make_error(ErrorKind::invalid_input, "bad_repo", "repo must be a GitHub \"owner/name\"", {}, 0, "repo");
  }
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const auto rows, label_feedback(store->db(), app.settings().github, repo));
  PT_ASSIGN(auto models, retrained_models(store->db(), repo));
  json labels = json::array();
  for (const auto& r : rows) labels.push_back(to_json(r));
  return json_response(200, {{"repo", repo.empty() ? json() : json(repo)},
                             {"labels", labels},
                             {"totals", feedback_totals(rows)},
                             {"models", std::move(models)}});
}

}  // namespace

void register_label_feedback_routes(Router& router) {
  router.add("GET", "/api/v1/issues/labels", get_label_feedback, RouteOptions{}.params({"repo"}));
}

}  // namespace perftriage::server
