#include "server/http/auth.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include <fmt/format.h>

#include "common/strings.hpp"
#include "schema/blob_codec.hpp"
#include "schema/token_store.hpp"
#include "server/app/app_context.hpp"

// Decisions the issue leaves open, made here:
// - Verified tokens are cached in memory for a few seconds (default 10 s; PERFTRIAGE_AUTH_CACHE_S, 0 = no cache,
//   at most 30), keyed by the SHA-256 of the token and the database path, and only while the data generation they
//   were verified under is current (AppContext::generation: any commit, a `token revoke` from another process
//   included, moves it): a revocation takes effect at the next request. An expiry takes effect at once (checked on
//   every use). Failures are never cached: an unknown token costs one indexed lookup.
// - A presented token must be valid even where none is needed (a public read with a revoked token is a 401), so a
//   client learns at once that its token is bad; on a public read any valid token passes, whatever its scopes (the
//   dashboard sends its token everywhere). Scope::none routes never look at the header.
// - OPTIONS (a CORS preflight, which never carries credentials) needs no token; the router answers it 204 with Allow.
// - The content type is checked after the token: an anonymous cross-site form post is a 401, whatever its type.
// - `last_used_at` is written at most once a minute per token, with no busy wait: when another connection holds the
//   write lock (a large upload), the update is skipped rather than stall the I/O thread.
namespace perftriage::server {
namespace {

using Clock = std::chrono::steady_clock;

struct CachedToken {
  std::string name;
  std::vector<std::string> scopes;
  std::string expires_at;  // "" = never
  Clock::time_point valid_until;
  std::uint64_t generation = 0;  // the data generation it was verified under
};

class TokenCache {
 public:
  static TokenCache& instance() {
    static TokenCache cache;
    return cache;
  }
  [[nodiscard]] Clock::duration ttl() const { return ttl_; }
  std::optional<CachedToken> get(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    if (it->second.valid_until <= Clock::now()) {
      entries_.erase(it);
      return std::nullopt;
    }
    return it->second;
  }
  void put(const std::string& key, CachedToken entry) {
    if (ttl_ <= Clock::duration::zero()) return;
    entry.valid_until = Clock::now() + ttl_;
    std::lock_guard lock(mutex_);
    if (entries_.size() >= kMaxEntries) entries_.clear();  // many distinct valid tokens: start over, stay bounded
    entries_[key] = std::move(entry);
  }

 private:
  static constexpr std::size_t kMaxEntries = 4096;
  TokenCache() {
    long seconds = 10;
    if (const char* env = std::getenv("PERFTRIAGE_AUTH_CACHE_S"); env != nullptr && *env != '\0') {
      seconds = std::clamp(std::strtol(env, nullptr, 10), 0L, 30L);
    }
    ttl_ = std::chrono::seconds(seconds);
  }
  Clock::duration ttl_{};
  std::mutex mutex_;
  std::unordered_map<std::string, CachedToken> entries_;
};

Error token_required(std::string_view why) {
  return make_error(ErrorKind::unauthorized, "token_required",
                    std::string(why) + ": send `Authorization: Bearer TOKEN` (perftriage token create)");
}

Error invalid_token(std::string message) {
  return make_error(ErrorKind::unauthorized, "invalid_token", std::move(message));
}

// Records a use at most once a minute, never waiting for the write lock (touch_token).
void touch(schema::Store& store, const schema::TokenInfo& info, const std::string& now) {
  if (!info.last_used_at.empty() && info.last_used_at > schema::iso8601_from_now(-60)) return;
  (void)schema::touch_token(store.db(), info.id, now);
}

// The token named by `authorization` (the header's value), or the error to answer.
Result<CachedToken> check_token(const std::string& authorization, AppContext& app) {
  const std::string value(trim(authorization, " \t"));
  const auto space = value.find(' ');
  if (space == std::string::npos || lower(value.substr(0, space)) != "bearer") {
    return token_required("the Authorization header is not a bearer token");
  }
  const std::string token(trim(std::string_view(value).substr(space + 1), " \t"));
  const std::string key = app.settings().db_path + '\n' + schema::sha256_hex(token);
  const std::string now = schema::iso8601_from_now(0);
  auto& cache = TokenCache::instance();
  const auto generation = app.generation();  // nullopt: commits cannot be seen, so nothing is taken from the cache
  if (auto hit = cache.get(key); hit && generation && hit->generation == *generation) {
    if (hit->expires_at.empty() || hit->expires_at > now) return *std::move(hit);
    return invalid_token("the API token '" + hit->name + "' expired at " + hit->expires_at);
  }
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const auto check, schema::verify_token(store->db(), token, now));
  switch (check.status) {
    case schema::TokenStatus::ok: break;
    case schema::TokenStatus::malformed:
    case schema::TokenStatus::unknown: return invalid_token("unknown API token");
    // The secret matched: whoever sent it holds the token, so saying why it no longer works leaks nothing.
    case schema::TokenStatus::revoked:
      return invalid_token("the API token '" + check.info.name + "' was revoked at " + check.info.revoked_at);
    case schema::TokenStatus::expired:
      return invalid_token("the API token '" + check.info.name + "' expired at " + check.info.expires_at);
  }
  touch(*store, check.info, now);
  CachedToken entry{check.info.name, check.info.scopes, check.info.expires_at, {}, 0};
  if (const auto after = app.generation()) {  // after the touch, which is a commit of its own
    entry.generation = *after;
    cache.put(key, entry);
  }
  return entry;
}

}  // namespace

std::optional<Error> authorize(ApiRequest& head, const RouteOptions& route, AppContext& app) {
  // A CORS preflight never carries credentials; the router answers it (204 with Allow) and cors_headers() decides
  // whether the browser may go on.
  if (head.method == "OPTIONS") return std::nullopt;
  const Scope needed = route.scope_for ? route.scope_for(head) : route.scope;
  if (needed != Scope::none) {
    const std::string authorization = head.header("authorization");
    const auto& auth = app.settings().auth;
    const bool public_read = needed == Scope::read && auth.read_access == Access::open &&
                             !(route.lane == Lane::compute && auth.compute_access == Access::token);
    if (!authorization.empty()) {
      auto token = check_token(authorization, app);
      if (!token) return std::move(token).error();
      head.token_name = token->name;  // also on a 403: the access log names who was refused
      if (!public_read && !schema::token_grants(token->scopes, scope_name(needed))) {
        return make_error(ErrorKind::forbidden, "insufficient_scope",
                          head.method + " " + (route.pattern.empty() ? head.path : route.pattern) +
                              " needs a token with scope '" + std::string(scope_name(needed)) + "'" +
                              (needed == Scope::admin ? "" : " (or admin)") + "; the token '" + token->name +
                              "' has: " + fmt::format("{}", fmt::join(token->scopes, ", ")));
      }
    } else if (!public_read) {
      return token_required(head.method + " " + (route.pattern.empty() ? head.path : route.pattern) +
                            " needs a token with scope '" + std::string(scope_name(needed)) + "'");
    }
  }
  if (!route.content_types.empty()) {
    const std::string type = media_type(head.header("content-type"));
    if (std::find(route.content_types.begin(), route.content_types.end(), type) == route.content_types.end()) {
      return make_error(ErrorKind::unsupported_media_type, "unsupported_content_type",
                        "Content-Type '" + (type.empty() ? std::string("(none)") : type) + "' is not accepted by " +
                            head.method + " " + route.pattern + "; use " +
                            fmt::format("{}", fmt::join(route.content_types, ", ")));
    }
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> cors_headers(const ApiRequest& head, AppContext& app) {
  const auto& allowed = app.settings().auth.cors_origins;
  if (allowed.empty()) return {};
  const std::string origin = head.header("origin");
  if (origin.empty()) return {};
  // The answer depends on Origin whenever CORS is configured, so caches must key on it.
  std::vector<std::pair<std::string, std::string>> out{{"Vary", "Origin"}};
  if (std::find(allowed.begin(), allowed.end(), origin) == allowed.end()) return out;
  out.emplace_back("Access-Control-Allow-Origin", origin);
  out.emplace_back("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Request-Id");
  out.emplace_back("Access-Control-Allow-Methods", "GET, HEAD, POST, DELETE, OPTIONS");
  out.emplace_back("Access-Control-Expose-Headers", "X-Request-Id, WWW-Authenticate, Retry-After");
  out.emplace_back("Access-Control-Max-Age", "600");
  return out;
}

std::string_view scope_name(Scope s) {
  switch (s) {
    case Scope::none: return "none";
    case Scope::read: return "read";
    case Scope::upload: return "upload";
    case Scope::triage: return "triage";
    case Scope::bot: return "bot";
    case Scope::admin: return "admin";
  }
  return "none";
}

std::optional<Scope> parse_scope(std::string_view name) {
  for (Scope s : {Scope::read, Scope::upload, Scope::triage, Scope::bot, Scope::admin}) {
    if (scope_name(s) == name) return s;
  }
  return std::nullopt;
}

}  // namespace perftriage::server
