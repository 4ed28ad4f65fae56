#include "server/routes/routes.hpp"

namespace perftriage::server {

void register_history_routes(Router&) {}  // placeholder until the resource lands

}  // namespace perftriage::server
