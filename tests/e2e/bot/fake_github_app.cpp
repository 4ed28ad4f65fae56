// The fake GitHub's App side (fake_github.hpp): the JWT's RS256 signature checked with OpenSSL against the App's
// public key, installation lookups, installation tokens that expire, and a 401 for anything not authenticated as a
// GitHub App must be.
#include "tests/e2e/bot/fake_github.hpp"
#include "tests/support/rsa_key.hpp"

namespace perftriage::testing {

void FakeGitHub::enable_app(std::string app_id, std::string public_key_pem, int token_ttl_s) {
  std::lock_guard lock(mutex_);
  app_id_ = std::move(app_id);
  app_public_key_ = std::move(public_key_pem);
  token_ttl_s_ = token_ttl_s;
}

std::string FakeGitHub::verify_jwt(const std::string& authorization) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.rfind(kBearer, 0) != 0) return "A JSON web token could not be decoded (no Bearer JWT)";
  const std::string jwt = authorization.substr(kBearer.size());
  const auto dot1 = jwt.find('.');
  const auto dot2 = dot1 == std::string::npos ? std::string::npos : jwt.find('.', dot1 + 1);
  if (dot2 == std::string::npos) return "A JSON web token could not be decoded";
  const auto header = nlohmann::json::parse(base64url_decode(jwt.substr(0, dot1)), nullptr, false);
  const auto claims = nlohmann::json::parse(base64url_decode(jwt.substr(dot1 + 1, dot2 - dot1 - 1)), nullptr, false);
  if (!header.is_object() || header.value("alg", "") != "RS256") return "The JWT must be signed with RS256";
  if (!rs256_verifies(app_public_key_, std::string_view(jwt).substr(0, dot2), base64url_decode(jwt.substr(dot2 + 1)))) {
    return "A JSON web token could not be decoded (bad signature)";
  }
  if (!claims.is_object() || !claims.contains("iat") || !claims.contains("exp") || !claims.contains("iss")) {
    return "'iat', 'exp' and 'iss' are required claims";
  }
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  const auto iat = claims["iat"].get<std::int64_t>(), exp = claims["exp"].get<std::int64_t>();
  const auto iss = claims["iss"].is_string() ? claims["iss"].get<std::string>() : claims["iss"].dump();
  if (iss != app_id_) return "'Issuer' claim ('iss') must be the App's id";
  if (exp <= now) return "'Expiration time' claim ('exp') is too far in the past";
  if (exp > now + 600 || exp - iat > 600) return "'Expiration time' claim ('exp') is too far in the future";
  if (iat > now + 60) return "'Issued at' claim ('iat') must be an Integer representing a time in the past";
  return "";
}

std::optional<FakeGitHub::Reply> FakeGitHub::app_gate(const Request& r) {
  if (app_id_.empty()) return std::nullopt;
  static const RE2 kInstallation(R"(^/repos/([^/]+/[^/]+)/installation$)");
  static const RE2 kMint(R"(^/app/installations/(\d+)/access_tokens$)");
  static const RE2 kRepoPath(R"(^/repos/([^/]+/[^/?]+))");
  const auto it = r.headers.find("authorization");
  const std::string authorization = it == r.headers.end() ? "" : it->second;
  const auto denied = [&](std::string why) {
    last_auth_failure_ = why;
    return reply(401, {{"message", why}, {"documentation_url", "https://docs.github.com/rest"}});
  };
  std::string repo, installation;
  const bool lookup = r.method == "GET" && RE2::FullMatch(r.target, kInstallation, &repo);
  if (lookup || r.target.rfind("/app", 0) == 0) {
    if (auto why = verify_jwt(authorization); !why.empty()) return denied(why);
    if (lookup) {
      const auto found = installed_.find(repo);
      if (found == installed_.end()) return reply(404, {{"message", "Not Found"}});
      return reply(200, {{"id", found->second}, {"app_id", std::stoll(app_id_)}});
    }
    if (r.method == "POST" && RE2::FullMatch(r.target, kMint, &installation)) {
      const std::string token = "ghs_fake" + std::to_string(++minted_);
      const std::time_t expires = std::time(nullptr) + token_ttl_s_;
      tokens_[token] = {std::stoll(installation), expires};
      return reply(201, {{"token", token}, {"expires_at", github_time(expires)}});
    }
    return reply(404, {{"message", "Not Found"}});
  }
  if (!RE2::PartialMatch(r.target, kRepoPath, &repo)) return std::nullopt;
  const auto space = authorization.find(' ');
  const auto token = tokens_.find(space == std::string::npos ? "" : authorization.substr(space + 1));
  if (token == tokens_.end()) return denied("Bad credentials");
  if (token->second.expires <= std::time(nullptr)) return denied("Bad credentials (the token expired)");
  const auto found = installed_.find(repo);
  if (found == installed_.end() || found->second != token->second.installation) {
    return reply(404, {{"message", "Not Found"}});  // GitHub hides what a token may not see
  }
  return std::nullopt;
}

}  // namespace perftriage::testing
