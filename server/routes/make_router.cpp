#include "server/routes/routes.hpp"

namespace perftriage::server {

Router make_router() {
  Router router;
  register_health_routes(router);
  register_upload_routes(router);
  register_run_routes(router);
  register_result_routes(router);
  register_slow_routes(router);
  register_compare_routes(router);
  register_history_routes(router);
  register_backlog_routes(router);
  register_report_routes(router);
  register_classify_routes(router);
  register_artifact_routes(router);
  register_label_routes(router);
  register_label_feedback_routes(router);
  register_webhook_routes(router);
  register_outbox_routes(router);
  register_triage_routes(router);
  register_explain_routes(router);
  register_dashboard_routes(router);
  register_trend_routes(router);
  register_metrics_routes(router);
  register_openapi_routes(router);
  register_web_routes(router);
  register_index_routes(router);  // last: it lists the routes above
  return router;
}

}  // namespace perftriage::server
