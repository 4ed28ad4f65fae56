#pragma once
// Request ids: every response carries X-Request-Id, and a JSON error names it, so a user's report finds its
// access-log line (server/app/observability.hpp).
#include <string>
#include <string_view>

#include "server/http/http_types.hpp"

namespace perftriage::server {

// The id of a request: the client's X-Request-Id when it is well-formed (1-64 of [A-Za-z0-9._-]), else a new one.
std::string request_id_for(const ApiRequest& head);
// Adds X-Request-Id to the response and, in a JSON error body ({"error": {...}}), "request_id" to the error.
void stamp_response(ApiResponse& response, std::string_view request_id);

}  // namespace perftriage::server
