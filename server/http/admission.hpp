#pragma once
// What a request's head alone decides, before a byte of its body is read, in the order the session asks: who may
// send it (auth), whether its query names only parameters the route takes, whether the client has a free share of
// the compute pool, the route's own header check, and how large a body the route takes. A refused request costs a
// header, never its upload.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "server/http/client_limiter.hpp"
#include "server/http/http_types.hpp"
#include "server/http/router.hpp"

namespace perftriage::server {
class AppContext;
}

namespace perftriage::server::transport {

struct Admission {
  std::optional<ApiResponse> refusal;  // answer this; the body is never read, so the connection is not reused
  std::size_t body_limit = 0;          // the route's limit within the server's ([limits] max_body_mb)
  bool limit_is_setting = true;        // the limit is the server's setting, not a route's fixed one (the 413 says)
  std::shared_ptr<ClientLimiter::Slot> slot;  // the client's share of the compute pool, held until the work ends
};

// `head.token_name` names the token that allowed the request (also when it was refused for its scope).
Admission admit(ApiRequest& head, const RouteOptions& route, AppContext& app, ClientLimiter& per_client,
                const std::string& remote);

// 503 queue_full of a pool (naming the setting that sizes it), with Retry-After.
ApiResponse queue_full(const std::string& pool, std::size_t queue_limit);

}  // namespace perftriage::server::transport
