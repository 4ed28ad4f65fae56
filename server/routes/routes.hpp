#pragma once
#include "server/http/router.hpp"

namespace perftriage::server {

// One file per resource; each registers its routes.
void register_health_routes(Router& router);
void register_upload_routes(Router& router);
void register_run_routes(Router& router);
void register_result_routes(Router& router);
void register_slow_routes(Router& router);
void register_compare_routes(Router& router);
void register_history_routes(Router& router);
void register_backlog_routes(Router& router);
void register_report_routes(Router& router);
void register_classify_routes(Router& router);
void register_artifact_routes(Router& router);
void register_label_routes(Router& router);
void register_label_feedback_routes(Router& router);
void register_webhook_routes(Router& router);
void register_outbox_routes(Router& router);
void register_triage_routes(Router& router);
void register_explain_routes(Router& router);
void register_dashboard_routes(Router& router);
void register_trend_routes(Router& router);
void register_metrics_routes(Router& router);
void register_openapi_routes(Router& router);
void register_web_routes(Router& router);
// GET /api/v1 lists the routes registered before it: make_router() adds it last.
void register_index_routes(Router& router);

// Every route of the server.
Router make_router();

}  // namespace perftriage::server
