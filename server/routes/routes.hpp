#pragma once
#include "server/router.hpp"

namespace perftriage::server {

// One file per resource; each registers its routes.
void register_health_routes(Router& router);
void register_upload_routes(Router& router);
void register_run_routes(Router& router);
void register_result_routes(Router& router);
void register_slow_routes(Router& router);
void register_static_routes(Router& router);

Router make_router();

}  // namespace perftriage::server
