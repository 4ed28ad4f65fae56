#include "server/routes/routes.hpp"

namespace perftriage::server {

Router make_router() {
  Router router;
  register_health_routes(router);
  register_upload_routes(router);
  register_run_routes(router);
  register_result_routes(router);
  register_slow_routes(router);
  register_static_routes(router);
  return router;
}

}  // namespace perftriage::server
