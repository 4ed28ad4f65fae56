#include "schema/token_store.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <ctime>
#include <limits>

#include "schema/store.hpp"

namespace perftriage::schema {
namespace {

constexpr std::size_t kIdBytes = 8;       // 16 hex digits
constexpr std::size_t kSecretBytes = 32;  // 64 hex digits: 256 bits
constexpr std::size_t kSaltBytes = 16;
constexpr std::string_view kPrefix = "pt_";

constexpr std::string_view kInsert =
    "INSERT INTO api_tokens(name, token_id, salt, hash, scopes, created_at, expires_at) "
    "VALUES($1, $2, $3, $4, $5, $6, $7) RETURNING id";
constexpr std::string_view kNameTaken = "SELECT 1 FROM api_tokens WHERE name = $1";
constexpr std::string_view kColumns =
    "SELECT id, name, token_id, scopes, created_at, COALESCE(expires_at, ''), COALESCE(revoked_at, ''), "
    "COALESCE(last_used_at, '')";
constexpr std::string_view kRevoke = "UPDATE api_tokens SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL";
constexpr std::string_view kTouch = "UPDATE api_tokens SET last_used_at = $2 WHERE id = $1";

std::string hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(n * 2, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

bool is_lower_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

Result<std::string> random_bytes(std::size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return make_error(ErrorKind::internal, "no_randomness", "OpenSSL could not produce random bytes");
  }
  return out;
}

// SHA-256(salt || secret), raw 32 bytes.
std::string salted_hash(std::string_view salt, std::string_view secret) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned len = 0;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  EVP_DigestUpdate(ctx, salt.data(), salt.size());
  EVP_DigestUpdate(ctx, secret.data(), secret.size());
  EVP_DigestFinal_ex(ctx, md.data(), &len);
  EVP_MD_CTX_free(ctx);
  return std::string(reinterpret_cast<const char*>(md.data()), len);
}

std::vector<std::string> split_scopes(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ',' || text[i] == ' ')) ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ',' && text[j] != ' ') ++j;
    if (j > i) out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string join_scopes(const std::vector<std::string>& scopes) {
  std::string out;
  for (const auto& s : scopes) out += (out.empty() ? "" : " ") + s;
  return out;
}

TokenInfo read_info(const Statement& st) {
  TokenInfo t;
  t.id = st.int64(0);
  t.name = st.text(1);
  t.token_id = st.text(2);
  t.scopes = split_scopes(st.text_view(3));
  t.created_at = st.text(4);
  t.expires_at = st.text(5);
  t.revoked_at = st.text(6);
  t.last_used_at = st.text(7);
  return t;
}

}  // namespace

Result<std::vector<std::string>> parse_token_scopes(const std::vector<std::string>& args) {
  std::vector<std::string> names;
  for (const auto& arg : args) {
    for (auto& s : split_scopes(arg)) {
      if (std::find(std::begin(kTokenScopes), std::end(kTokenScopes), s) == std::end(kTokenScopes)) {
        return make_error(ErrorKind::invalid_input, "unknown_scope",
                          "unknown scope '" + s + "': use read, upload, triage, bot or admin");
      }
      names.push_back(std::move(s));
    }
  }
  if (names.empty()) {
    return make_error(ErrorKind::invalid_input, "no_scope",
                      "a token needs at least one scope: read, upload, triage, bot or admin");
  }
  std::vector<std::string> out;
  for (auto scope : kTokenScopes) {
    if (std::find(names.begin(), names.end(), scope) != names.end()) out.emplace_back(scope);
  }
  return out;
}

bool token_grants(const std::vector<std::string>& scopes, std::string_view needed) {
  return std::any_of(scopes.begin(), scopes.end(), [&](const std::string& s) { return s == needed || s == "admin"; });
}

Result<std::optional<std::int64_t>> parse_token_lifetime(std::string_view text) {
  if (text.empty() || text == "never") return std::optional<std::int64_t>{};
  auto bad = [&] {
    return make_error(ErrorKind::invalid_input, "bad_expiry",
                      "--expires '" + std::string(text) +
                          "' must be a positive number with a unit (90d, 12h, 30m, "
                          "45s) or 'never'");
  };
  const char unit = text.back();
  std::int64_t per = 0;
  switch (unit) {
    case 'd': per = 86400; break;
    case 'h': per = 3600; break;
    case 'm': per = 60; break;
    case 's': per = 1; break;
    default: return bad();
  }
  const auto digits = text.substr(0, text.size() - 1);
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || n <= 0 ||
      n > 100LL * 366 * 86400 / per) {
    return bad();
  }
  return std::optional<std::int64_t>{n * per};
}

std::string iso8601_from_now(std::int64_t seconds) {
  return iso8601_utc(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()) +
                     static_cast<std::time_t>(seconds));
}

bool valid_token_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == ':' || c == '@' || c == '-';
  });
}

nlohmann::json to_json(const TokenInfo& info) {
  using nlohmann::json;
  auto or_null = [](const std::string& s) { return s.empty() ? json() : json(s); };
  return {{"name", info.name},
          {"token_id", info.token_id},
          {"scopes", info.scopes},
          {"created_at", info.created_at},
          {"expires_at", or_null(info.expires_at)},
          {"revoked_at", or_null(info.revoked_at)},
          {"last_used_at", or_null(info.last_used_at)}};
}

std::string_view to_string(TokenStatus status) {
  switch (status) {
    case TokenStatus::ok: return "ok";
    case TokenStatus::malformed: return "malformed";
    case TokenStatus::unknown: return "unknown";
    case TokenStatus::revoked: return "revoked";
    case TokenStatus::expired: return "expired";
  }
  return "unknown";
}

Result<NewToken> create_token(Database& db, std::string_view name, const std::vector<std::string>& scopes,
                              std::optional<std::string> expires_at) {
  if (!valid_token_name(name)) {
    return make_error(ErrorKind::invalid_input, "bad_token_name",
                      "a token name is 1-64 characters of letters, digits and . _ : @ -");
  }
  PT_ASSIGN(auto canonical, parse_token_scopes(scopes));
  {
    PT_ASSIGN(auto st, Statement::prepare(db, kNameTaken));
    st.bind(1, name);
    PT_ASSIGN(const bool row, st.step());
    if (row) {
      return make_error(ErrorKind::conflict, "token_name_taken",
                        "a token named '" + std::string(name) + "' exists (revoked tokens keep their name)");
    }
  }
  PT_ASSIGN(const std::string id, random_bytes(kIdBytes));
  PT_ASSIGN(std::string secret, random_bytes(kSecretBytes));
  PT_ASSIGN(const std::string salt, random_bytes(kSaltBytes));
  NewToken out;
  out.info.name = std::string(name);
  out.info.token_id = hex(reinterpret_cast<const unsigned char*>(id.data()), id.size());
  const std::string secret_hex = hex(reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  out.info.scopes = std::move(canonical);
  out.info.created_at = iso8601_from_now(0);
  out.info.expires_at = expires_at.value_or("");
  PT_ASSIGN(auto st, Statement::prepare(db, kInsert));
  st.bind(1, name).bind(2, out.info.token_id).bind_blob(3, salt).bind_blob(4, salted_hash(salt, secret_hex));
  st.bind(5, join_scopes(out.info.scopes)).bind(6, out.info.created_at).bind(7, expires_at);
  PT_ASSIGN(out.info.id, scalar(st));
  out.token = std::string(kPrefix) + out.info.token_id + "_" + secret_hex;
  OPENSSL_cleanse(secret.data(), secret.size());
  return out;
}

Result<std::vector<TokenInfo>> list_tokens(Database& db) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kColumns) + " FROM api_tokens ORDER BY id"));
  return collect<TokenInfo>(st, read_info);
}

Result<bool> revoke_token(Database& db, std::string_view name) {
  PT_ASSIGN(auto st, Statement::prepare(db, kRevoke));
  st.bind(1, name).bind(2, iso8601_from_now(0));
  PT_TRY(st.run());
  return db.changes() == 1;
}

Result<TokenCheck> verify_token(Database& db, std::string_view token, std::string_view now) {
  TokenCheck check;
  constexpr std::size_t kIdHex = kIdBytes * 2, kSecretHex = kSecretBytes * 2;
  if (token.size() != kPrefix.size() + kIdHex + 1 + kSecretHex || token.substr(0, kPrefix.size()) != kPrefix ||
      token[kPrefix.size() + kIdHex] != '_') {
    check.status = TokenStatus::malformed;
    return check;
  }
  const auto token_id = token.substr(kPrefix.size(), kIdHex);
  const auto secret = token.substr(kPrefix.size() + kIdHex + 1);
  if (!is_lower_hex(token_id) || !is_lower_hex(secret)) {
    check.status = TokenStatus::malformed;
    return check;
  }
  PT_ASSIGN(auto st,
            Statement::prepare(db, std::string(kColumns) + ", salt, hash FROM api_tokens WHERE token_id = $1"));
  st.bind(1, token_id);
  PT_ASSIGN(const bool row, st.step());
  if (!row) {
    check.status = TokenStatus::unknown;
    return check;
  }
  const std::string salt = st.blob(8), stored = st.blob(9);
  const std::string presented = salted_hash(salt, secret);
  if (stored.size() != presented.size() || CRYPTO_memcmp(stored.data(), presented.data(), stored.size()) != 0) {
    check.status = TokenStatus::unknown;
    return check;
  }
  check.info = read_info(st);
  if (!check.info.revoked_at.empty()) {
    check.status = TokenStatus::revoked;
  } else if (!check.info.expires_at.empty() && check.info.expires_at <= now) {
    check.status = TokenStatus::expired;
  } else {
    check.status = TokenStatus::ok;
  }
  return check;
}

Result<void> touch_token(Database& db, std::int64_t id, std::string_view now) {
  PT_ASSIGN(auto st, Statement::prepare(db, kTouch));
  st.bind(1, id).bind(2, now);
  // Never waits for the write lock: a use not recorded now is recorded by a later one.
  const int busy_timeout_ms = db.busy_timeout_ms();
  db.set_busy_timeout(0);
  auto done = st.run();
  db.set_busy_timeout(busy_timeout_ms);
  return done;
}

}  // namespace perftriage::schema
