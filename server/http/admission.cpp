#include "server/http/admission.hpp"

#include <algorithm>

#include "server/app/app_context.hpp"
#include "server/http/auth.hpp"

namespace perftriage::server::transport {
namespace {

// A client over its share of the compute pool: how long it is asked to wait.
constexpr const char* kRetryAfterClient = "1";

ApiResponse client_over_share(const ClientLimiter& limiter) {
  auto api = error_response(
      make_error(ErrorKind::too_many_requests, "too_many_requests",
                 "this client already has " + std::to_string(limiter.per_client()) +
                     " classify or label requests waiting or running ([server] compute_per_client); retry after " +
                     kRetryAfterClient + " s"));
  api.headers.emplace_back("Retry-After", kRetryAfterClient);
  return api;
}

Admission refused(const Error& error) {
  Admission out;
  out.refusal = error_response(error);
  return out;
}

}  // namespace

Admission admit(ApiRequest& head, const RouteOptions& route, AppContext& app, ClientLimiter& per_client,
                const std::string& remote) {
  if (auto unauthorized = authorize(head, route, app)) return refused(*unauthorized);
  if (auto unknown = unknown_parameter(head, route)) return refused(*unknown);
  Admission out;
  const std::size_t server_limit = app.settings().max_body_bytes;
  out.body_limit = route.max_body_bytes == 0 ? server_limit : std::min(route.max_body_bytes, server_limit);
  out.limit_is_setting = route.max_body_bytes == 0 || route.max_body_bytes >= server_limit;
  if (route.lane == Lane::compute) {
    // The slot is held while the body arrives (its memory is the client's too) and until the work is done.
    out.slot = per_client.try_enter(client_key(head.token_name, remote));
    if (!out.slot) {
      out.refusal = client_over_share(per_client);
      return out;
    }
  }
  if (route.header_check) {
    if (auto refusal = route.header_check(head, app)) {
      out.refusal = error_response(*refusal);
      out.slot.reset();
    }
  }
  return out;
}

ApiResponse queue_full(const std::string& pool, std::size_t queue_limit) {
  // The setting that sizes the pool's queue, named in its 503.
  const char* setting = pool == "heavy"     ? "[server] heavy_queue, serve --heavy-queue"
                        : pool == "compute" ? "[server] compute_queue, serve --compute-queue"
                                            : "[server] read_queue, serve --read-queue";
  auto busy = error_response(make_error(ErrorKind::unavailable, "queue_full",
                                        "the " + pool + " queue is full (" + std::to_string(queue_limit) +
                                            " requests waiting; " + setting + "); retry after 1 s"));
  busy.headers.emplace_back("Retry-After", "1");
  return busy;
}

}  // namespace perftriage::server::transport
