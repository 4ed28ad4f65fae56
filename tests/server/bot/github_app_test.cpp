// The GitHub App's authentication without a network: the JWT checked with OpenSSL against the public key, and the
// installation-token cache driven by a recorded `send` and a clock the test moves.
#include <gtest/gtest.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <string>
#include <vector>

#include "server/bot/github_app.hpp"
#include "server/bot/github_client.hpp"
#include "tests/support/rsa_key.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

const testing::RsaKeyPair& key() {
  static const auto pair = testing::make_rsa_key();
  return pair;
}

bool verifies(std::string_view signed_part, const std::string& signature) {
  return testing::rs256_verifies(key().public_pem, signed_part, signature);
}
std::string unbase64url(std::string_view s) { return testing::base64url_decode(s); }

TEST(GitHubAppJwt, IsSignedWithRs256AndCarriesTheClaimsGitHubChecks) {
  const auto jwt = app_jwt({"4242", key().private_pem}, 1'700'000'000);
  ASSERT_TRUE(jwt) << jwt.error().message;
  const auto dot1 = jwt->find('.'), dot2 = jwt->rfind('.');
  ASSERT_NE(dot1, dot2);
  EXPECT_EQ(json::parse(unbase64url(jwt->substr(0, dot1))), json({{"alg", "RS256"}, {"typ", "JWT"}}));
  const auto claims = json::parse(unbase64url(jwt->substr(dot1 + 1, dot2 - dot1 - 1)));
  EXPECT_EQ(claims["iss"], "4242");
  EXPECT_EQ(claims["iat"], 1'700'000'000 - 60);   // back against clock drift
  EXPECT_EQ(claims["exp"], 1'700'000'000 + 540);  // under GitHub's 10 minutes
  EXPECT_TRUE(verifies(std::string_view(*jwt).substr(0, dot2), unbase64url(jwt->substr(dot2 + 1))));
  // Another payload under the same signature does not verify: the check above is not vacuous.
  EXPECT_FALSE(verifies("x" + jwt->substr(1, dot2 - 1), unbase64url(jwt->substr(dot2 + 1))));
}

TEST(GitHubAppJwt, AKeyThatCannotSignRs256IsRefusedWithTheSetting) {
  const auto garbage = app_jwt({"1", "-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n"}, 0);
  ASSERT_FALSE(garbage);
  EXPECT_NE(garbage.error().message.find("[github] private_key_file: not a PEM private key"), std::string::npos);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> ec(EVP_EC_gen("P-256"), EVP_PKEY_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_PrivateKey(bio.get(), ec.get(), nullptr, nullptr, 0, nullptr, nullptr);
  const auto not_rsa = app_jwt({"1", testing::bio_text(bio.get())}, 0);
  ASSERT_FALSE(not_rsa);
  EXPECT_NE(not_rsa.error().message.find("not an RSA key"), std::string::npos);
  EXPECT_FALSE(GitHubAppAuth::create({"1", "nope"}));
  EXPECT_FALSE(GitHubAppAuth::create({"", key().private_pem}));
}

TEST(GitHubAppPaths, TheRepositoryOfARequestPathAndGitHubTimes) {
  EXPECT_EQ(repo_of_path("/repos/intel/torch-xpu-ops/issues/1/labels"), "intel/torch-xpu-ops");
  EXPECT_EQ(repo_of_path("/repos/a/b?x=1"), "a/b");
  EXPECT_EQ(repo_of_path("/repos/a/b"), "a/b");
  EXPECT_EQ(repo_of_path("/repos/a"), "");
  EXPECT_EQ(repo_of_path("/repos//b/x"), "");
  EXPECT_EQ(repo_of_path("/app/installations"), "");
  EXPECT_EQ(parse_github_time("2016-07-11T22:14:10Z"), 1468275250);
  EXPECT_EQ(parse_github_time("2016-07-11 22:14:10"), std::nullopt);
  EXPECT_EQ(parse_github_time("2016-07-11T22:14:10Zjunk"), std::nullopt);
}

// A scripted GitHub for the token cache: what each request got, and the answers it gives.
struct Script {
  std::int64_t now = 1'700'000'000;
  std::vector<std::string> calls;  // "METHOD PATH AUTH-SCHEME"
  long lookup_status = 200;
  int minted = 0;
  GitHubAppAuth::Send send() {
    return [this](std::string_view method, std::string_view path, const std::string& authorization) {
      calls.push_back(std::string(method) + " " + std::string(path) + " " +
                      authorization.substr(0, authorization.find(' ')));
      GitHubResponse r;
      if (path.find("/installation") != std::string_view::npos && method == "GET") {
        r.status = lookup_status;
        r.body = lookup_status == 200 ? R"({"id": 77})" : R"({"message": "Not Found"})";
      } else {
        r.status = 201;
        r.body = json{{"token", "t" + std::to_string(++minted)}, {"expires_at", "2023-11-14T23:13:20Z"}}.dump();
      }
      return r;
    };
  }
};

std::string header_of(const std::variant<std::string, GitHubResponse>& v) {
  if (const auto* failed = std::get_if<GitHubResponse>(&v)) return "failed: " + failed->transport_error;
  return std::get<std::string>(v);
}

TEST(GitHubAppAuthCache, AnInstallationTokenIsLookedUpOnceKeptAndMintedAgainAheadOfExpiry) {
  Script gh;  // the token expires at 1,700,003,600: an hour after `now`
  auto auth = GitHubAppAuth::create({"4242", key().private_pem}, [&] { return gh.now; });
  ASSERT_TRUE(auth);
  EXPECT_EQ(header_of((*auth)->authorization("/repos/o/r/issues/1/labels", gh.send())), "token t1");
  EXPECT_EQ(gh.calls, (std::vector<std::string>{"GET /repos/o/r/installation Bearer",
                                                "POST /app/installations/77/access_tokens Bearer"}));
  gh.now += 3600 - GitHubAppAuth::kRefreshAheadS - 1;  // one second before the refresh margin: still kept
  EXPECT_EQ(header_of((*auth)->authorization("/repos/o/r/issues/2/comments", gh.send())), "token t1");
  EXPECT_EQ(gh.calls.size(), 2u);
  gh.now += 1;  // within the margin: minted again, the installation is not looked up again
  EXPECT_EQ(header_of((*auth)->authorization("/repos/o/r/issues/2/comments", gh.send())), "token t2");
  EXPECT_EQ(gh.calls.back(), "POST /app/installations/77/access_tokens Bearer");
  EXPECT_EQ(gh.calls.size(), 3u);
  (*auth)->unauthorized("/repos/o/r/labels");  // a 401: the next request mints
  EXPECT_EQ(header_of((*auth)->authorization("/repos/o/r/labels", gh.send())), "token t3");
  EXPECT_EQ((*auth)->stats().mints, 3);
  EXPECT_EQ((*auth)->stats().lookups, 1);
  // The App's own endpoints take the JWT, with no lookup.
  EXPECT_EQ(header_of((*auth)->authorization("/app/installations", gh.send())).rfind("Bearer ey", 0), 0u);
  EXPECT_EQ(gh.calls.size(), 4u);
}

TEST(GitHubAppAuthCache, ARepositoryWithoutTheAppIsRefusedSayingSo) {
  Script gh;
  gh.lookup_status = 404;
  auto auth = GitHubAppAuth::create({"4242", key().private_pem}, [&] { return gh.now; });
  ASSERT_TRUE(auth);
  const auto answer = (*auth)->authorization("/repos/o/elsewhere/issues/1/labels", gh.send());
  ASSERT_TRUE(std::holds_alternative<GitHubResponse>(answer));
  EXPECT_TRUE(std::get<GitHubResponse>(answer).refused);  // the outbox fails it at once: retrying cannot help
  EXPECT_NE(header_of(answer).find("the App is not installed on o/elsewhere"), std::string::npos) << header_of(answer);
  gh.lookup_status = 500;  // a GitHub outage is not a refusal: the outbox retries it
  const auto outage = (*auth)->authorization("/repos/o/elsewhere/issues/1/labels", gh.send());
  ASSERT_TRUE(std::holds_alternative<GitHubResponse>(outage));
  EXPECT_FALSE(std::get<GitHubResponse>(outage).refused);
  EXPECT_EQ(std::get<GitHubResponse>(outage).status, 500);
}

TEST(GitHubAppAuthCache, ForgettingAnInstallationLooksItUpAgain) {
  Script gh;
  auto auth = GitHubAppAuth::create({"4242", key().private_pem}, [&] { return gh.now; });
  ASSERT_TRUE(auth);
  (void)(*auth)->authorization("/repos/o/r/labels", gh.send());
  (*auth)->forget_installation(77);
  (void)(*auth)->authorization("/repos/o/r/labels", gh.send());
  EXPECT_EQ((*auth)->stats().lookups, 2);
  EXPECT_EQ((*auth)->stats().mints, 2);
}

}  // namespace
}  // namespace perftriage::server
