// GET /metrics: the Prometheus text exposition (server/app/observability.hpp): request counters and latency histograms
// by route pattern, bytes, connections, rows ingested, refused uploads, webhook deliveries, cache lookups, and gauges
// read from the database at scrape time (outbox and delivery states, runs, database and WAL size). Public
// (Scope::none) like /healthz: it carries counts, never names, paths or tokens.
#include "server/app/app_context.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

ApiResponse get_metrics(const ApiRequest&, AppContext& app) {
  auto r = text_response(200, "text/plain; version=0.0.4; charset=utf-8", app.obs().render(app));
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

}  // namespace

void register_metrics_routes(Router& router) {
  // The read pool: a scrape reads a few counts from the database.
  router.add("GET", "/metrics", get_metrics, RouteOptions::on(Lane::read).require(Scope::none).uncached());
}

}  // namespace perftriage::server
