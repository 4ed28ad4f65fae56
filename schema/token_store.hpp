#pragma once
// API tokens (migration 007). A token is `pt_<token_id>_<secret>`: `token_id` (16 hex digits) is public and finds the
// row; the secret (64 hex digits, 256 bits from OpenSSL's RAND_bytes) is never stored — only SHA-256(salt || secret)
// with a per-token random salt, compared in constant time. The token itself is returned once, by create_token().
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// The scopes a token can hold, in canonical order. `admin` implies every other scope (token_grants).
inline constexpr std::string_view kTokenScopes[] = {"read", "upload", "triage", "bot", "admin"};

// Scope names from one or more arguments, each a name or a comma/space-separated list ("upload", "read,triage"):
// validated, deduplicated, in canonical order. An unknown or missing scope is an invalid_input error naming it.
Result<std::vector<std::string>> parse_token_scopes(const std::vector<std::string>& args);
// True when `scopes` allow `needed` ("read", "upload", ...): it is listed, or `admin` is.
bool token_grants(const std::vector<std::string>& scopes, std::string_view needed);
// "90d", "12h", "30m", "3600s" -> seconds; "never" (or "") -> nullopt. Anything else is invalid_input.
Result<std::optional<std::int64_t>> parse_token_lifetime(std::string_view text);
// ISO-8601 UTC ("2026-01-01T00:00:00Z") of now + `seconds`: the format every api_tokens timestamp uses, so timestamps
// compare as strings.
std::string iso8601_from_now(std::int64_t seconds);
// Names are what logs, the audit log and 403 messages show: 1-64 characters of [A-Za-z0-9._:@-].
bool valid_token_name(std::string_view name);

struct TokenInfo {  // everything about a token except its secret and hash
  std::int64_t id = 0;
  std::string name, token_id;
  std::vector<std::string> scopes;
  std::string created_at;
  std::string expires_at;    // "" = never
  std::string revoked_at;    // "" = active
  std::string last_used_at;  // "" = never used (updated at most about once a minute)
};
nlohmann::json to_json(const TokenInfo& info);  // {name, token_id, scopes, created_at, expires_at, revoked_at, ...}

struct NewToken {
  TokenInfo info;
  std::string token;  // `pt_<token_id>_<secret>`: shown once, stored nowhere
};

enum class TokenStatus {
  ok,
  malformed,  // not of the form pt_<16 hex>_<64 hex>
  unknown,    // no row with that token_id, or the secret does not match its hash
  revoked,
  expired,
};
std::string_view to_string(TokenStatus status);

struct TokenCheck {
  TokenStatus status = TokenStatus::unknown;
  TokenInfo info;  // filled in when the secret matched (ok, revoked, expired)
};

// A new token. `expires_at` is ISO-8601 UTC or nullopt for never. conflict "token_name_taken" when a token (even a
// revoked one: the audit log refers to tokens by name) already has the name.
Result<NewToken> create_token(Database& db, std::string_view name, const std::vector<std::string>& scopes,
                              std::optional<std::string> expires_at);
Result<std::vector<TokenInfo>> list_tokens(Database& db);  // oldest first, revoked ones included
// Marks the token revoked (the row stays). False when no active token has that name.
Result<bool> revoke_token(Database& db, std::string_view name);
// Checks a presented token at `now` (ISO-8601 UTC, as iso8601_from_now(0)).
Result<TokenCheck> verify_token(Database& db, std::string_view token, std::string_view now);
// Records a use: one small UPDATE that never waits for the write lock (busy: a db_busy error, nothing recorded).
// The caller decides how often (server/http/auth.cpp: at most once a minute).
Result<void> touch_token(Database& db, std::int64_t id, std::string_view now);

}  // namespace perftriage::schema
