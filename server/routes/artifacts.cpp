#include "server/routes/routes.hpp"

namespace perftriage::server {

void register_artifact_routes(Router&) {}  // placeholder until the resource lands

}  // namespace perftriage::server
