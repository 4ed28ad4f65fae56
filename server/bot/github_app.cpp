#include "server/bot/github_app.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <chrono>
#include <ctime>

#include "server/bot/github_client.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

// RFC 7515's base64url: the URL-safe alphabet, no padding.
std::string base64url(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

Result<std::string> rs256(std::string_view pem, std::string_view signing_input) {
  const auto bad_key = [](std::string why) {
    return make_error(ErrorKind::invalid_input, "bad_app_key", "[github] private_key_file: " + why);
  };
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  std::unique_ptr<EVP_PKEY, KeyFree> key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) return bad_key("not a PEM private key (GitHub's App settings page generates one)");
  if (EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) return bad_key("not an RSA key (RS256 needs one)");
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  std::size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(signing_input.data());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length, data, signing_input.size()) != 1) {
    return bad_key("the key cannot sign with RS256");
  }
  std::string signature(length, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length, data,
                     signing_input.size()) != 1) {
    return bad_key("signing failed");
  }
  signature.resize(length);
  return signature;
}

std::int64_t system_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Result<std::string> app_jwt(const GitHubAppIdentity& app, std::int64_t now_s) {
  const std::string header = base64url(json{{"alg", "RS256"}, {"typ", "JWT"}}.dump());
  const std::string claims = base64url(json{{"iat", now_s - 60}, {"exp", now_s + 9 * 60}, {"iss", app.app_id}}.dump());
  const std::string signing_input = header + "." + claims;
  PT_ASSIGN(const auto signature, rs256(app.private_key_pem, signing_input));
  return signing_input + "." + base64url(signature);
}

std::string_view repo_of_path(std::string_view path) {
  constexpr std::string_view kRepos = "/repos/";
  if (path.substr(0, kRepos.size()) != kRepos) return {};
  const auto rest = path.substr(kRepos.size());
  const auto owner_end = rest.find('/');
  if (owner_end == std::string_view::npos || owner_end == 0) return {};
  auto name_end = rest.find_first_of("/?", owner_end + 1);
  if (name_end == std::string_view::npos) name_end = rest.size();
  if (name_end == owner_end + 1) return {};
  return rest.substr(0, name_end);
}

std::optional<std::int64_t> parse_github_time(std::string_view text) {
  std::tm tm{};
  const std::string owned(text);
  const char* end = strptime(owned.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<std::int64_t>(timegm(&tm));
}

Result<std::shared_ptr<GitHubAppAuth>> GitHubAppAuth::create(GitHubAppIdentity app, Clock clock) {
  if (app.app_id.empty()) return make_error(ErrorKind::invalid_input, "bad_app_id", "[github] app_id is empty");
  PT_TRY(app_jwt(app, system_now()));
  if (!clock) clock = system_now;
  return std::shared_ptr<GitHubAppAuth>(new GitHubAppAuth(std::move(app), std::move(clock)));
}

std::variant<std::string, GitHubResponse> GitHubAppAuth::jwt_header() {
  auto jwt = app_jwt(app_, clock_());
  if (!jwt) return not_sent(jwt.error().message);
  return "Bearer " + *jwt;
}

std::variant<std::int64_t, GitHubResponse> GitHubAppAuth::installation_of(const std::string& repo, const Send& send) {
  if (const auto it = installations_.find(repo); it != installations_.end()) return it->second;
  auto jwt = jwt_header();
  if (auto* failed = std::get_if<GitHubResponse>(&jwt)) return std::move(*failed);
  ++stats_.lookups;
  auto answer = send("GET", "/repos/" + repo + "/installation", std::get<std::string>(jwt));
  if (answer.status == 404)
    return not_sent("the App is not installed on " + repo + " (GET /repos/" + repo +
                    "/installation: 404; install it there, or leave the repository out)");
  if (!answer.ok()) return answer;
  const auto body = answer.json();
  if (!body.is_object() || !body.contains("id") || !body["id"].is_number_integer()) {
    return not_sent("GET /repos/" + repo + "/installation answered without an installation id");
  }
  const auto id = body["id"].get<std::int64_t>();
  installations_[repo] = id;
  return id;
}

std::variant<std::string, GitHubResponse> GitHubAppAuth::token_of(std::int64_t installation, const Send& send) {
  if (const auto it = tokens_.find(installation);
      it != tokens_.end() && it->second.expires_s - kRefreshAheadS > clock_()) {
    return "token " + it->second.value;
  }
  auto jwt = jwt_header();
  if (auto* failed = std::get_if<GitHubResponse>(&jwt)) return std::move(*failed);
  ++stats_.mints;
  const std::string path = "/app/installations/" + std::to_string(installation) + "/access_tokens";
  auto answer = send("POST", path, std::get<std::string>(jwt));
  if (!answer.ok()) return answer;
  const auto body = answer.json();
  const auto expires = body.is_object() && body.contains("expires_at") && body["expires_at"].is_string()
                           ? parse_github_time(body["expires_at"].get<std::string>())
                           : std::nullopt;
  if (!body.contains("token") || !body["token"].is_string() || !expires) {
    return not_sent("POST " + path + " answered without a token and its expires_at");
  }
  tokens_[installation] = {body["token"].get<std::string>(), *expires};
  return "token " + body["token"].get<std::string>();
}

std::variant<std::string, GitHubResponse> GitHubAppAuth::authorization(std::string_view path, const Send& send) {
  const std::string repo(repo_of_path(path));
  std::lock_guard lock(mutex_);
  if (repo.empty()) return jwt_header();  // the App's own endpoints (/app/...) take the JWT
  auto installation = installation_of(repo, send);
  if (auto* failed = std::get_if<GitHubResponse>(&installation)) return std::move(*failed);
  return token_of(std::get<std::int64_t>(installation), send);
}

void GitHubAppAuth::unauthorized(std::string_view path) {
  const std::string repo(repo_of_path(path));
  std::lock_guard lock(mutex_);
  if (const auto it = installations_.find(repo); it != installations_.end()) tokens_.erase(it->second);
}

void GitHubAppAuth::forget_installation(std::int64_t installation_id) {
  std::lock_guard lock(mutex_);
  tokens_.erase(installation_id);
  std::erase_if(installations_, [&](const auto& entry) { return entry.second == installation_id; });
}

GitHubAppAuth::Stats GitHubAppAuth::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace perftriage::server
