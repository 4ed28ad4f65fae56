#pragma once
// Acting as a GitHub App instead of with one person's token. The App proves who it is with a JWT signed (RS256) by
// its private key; that JWT only mints installation tokens, one per installation of the App, which last an hour and
// carry exactly the permissions the installation granted. A request about a repository carries the token of the
// installation that covers it: looked up once (GET /repos/{repo}/installation), minted (POST
// /app/installations/{id}/access_tokens), kept until shortly before it expires, and minted again after a 401.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace perftriage::server {

struct GitHubResponse;

struct GitHubAppIdentity {
  std::string app_id;           // the numeric App ID or its client ID: the JWT's `iss`
  std::string private_key_pem;  // the key GitHub generated for the App (PKCS#1 or PKCS#8 PEM)
};

// The App's JWT at unix time `now_s`: `iat` 60 s back against clock drift (GitHub's advice), `exp` 9 minutes on
// (GitHub refuses more than 10). Fails when the key is not an RSA private key in PEM.
Result<std::string> app_jwt(const GitHubAppIdentity& app, std::int64_t now_s);

// "owner/name" when `path` is "/repos/owner/name[/...]", "" for any other path.
std::string_view repo_of_path(std::string_view path);

// Unix seconds of GitHub's "YYYY-MM-DDTHH:MM:SSZ"; nullopt for any other text.
std::optional<std::int64_t> parse_github_time(std::string_view text);

class GitHubAppAuth {
 public:
  // One request to GitHub with the given Authorization header value ("Bearer <jwt>" or "token <t>").
  using Send =
      std::function<GitHubResponse(std::string_view method, std::string_view path, const std::string& authorization)>;
  using Clock = std::function<std::int64_t()>;  // unix seconds
  // A token this close to its expiry is minted again before use: a request never starts on a token that could expire
  // while it waits in GitHub's queue or the outbox's retries.
  static constexpr std::int64_t kRefreshAheadS = 5 * 60;

  // Checks that the key signs (a bad key is an error at start, not at the first delivery).
  static Result<std::shared_ptr<GitHubAppAuth>> create(GitHubAppIdentity app, Clock clock = {});

  // The Authorization value for a request to `path`: the JWT for the App's own endpoints (/app/...), the repository's
  // installation token for /repos/{repo}/...; else the answer to report instead (GitHubResponse: the failed lookup or
  // mint, `refused` when retrying cannot help: the App is not installed there, or the key cannot sign).
  std::variant<std::string, GitHubResponse> authorization(std::string_view path, const Send& send);
  // GitHub answered a request to `path` with 401: the token it carried is dropped, the next request mints another.
  void unauthorized(std::string_view path);
  // The App was uninstalled, or lost repositories: what is cached for them goes (they are looked up again if asked).
  void forget_installation(std::int64_t installation_id);

  struct Stats {
    std::int64_t lookups = 0;  // GET /repos/{repo}/installation made
    std::int64_t mints = 0;    // installation tokens minted
  };
  [[nodiscard]] Stats stats() const;

 private:
  struct Token {
    std::string value;
    std::int64_t expires_s = 0;
  };
  GitHubAppAuth(GitHubAppIdentity app, Clock clock) : app_(std::move(app)), clock_(std::move(clock)) {}
  std::variant<std::string, GitHubResponse> jwt_header();
  std::variant<std::int64_t, GitHubResponse> installation_of(const std::string& repo, const Send& send);
  std::variant<std::string, GitHubResponse> token_of(std::int64_t installation, const Send& send);

  GitHubAppIdentity app_;
  Clock clock_;
  mutable std::mutex mutex_;  // held across a lookup or mint: concurrent requests wait for one mint, not make many
  std::map<std::string, std::int64_t> installations_;  // repo -> installation id
  std::map<std::int64_t, Token> tokens_;               // installation id -> its token
  Stats stats_;
};

}  // namespace perftriage::server
