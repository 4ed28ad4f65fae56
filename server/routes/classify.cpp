#include "server/routes/routes.hpp"

namespace perftriage::server {

void register_classify_routes(Router&) {}  // placeholder until the resource lands

}  // namespace perftriage::server
