#pragma once
// Helpers for the bot's end-to-end tests: signed webhook posts, payloads, waiting for the outbox to drain.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/bot/webhook.hpp"
#include "tests/support/files.hpp"
#include "tests/support/server_process.hpp"

namespace perftriage::testing {

inline constexpr const char* kSecret = "s3cret-for-tests";
inline constexpr const char* kToken = "ghp_test_token";
inline constexpr const char* kBot = "perftriage[bot]";
inline constexpr const char* kRepo = "intel/torch-xpu-ops";
inline constexpr std::int64_t kSeedNumber = 3761;
inline constexpr const char* kSeedTitle =
    "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)";

inline std::string seed_body() { return read_bytes(fixture("labeler/seed_3761_body.md")); }

// POST /webhooks/github signed with `secret` ("" = no signature header).
inline HttpReply send_webhook(unsigned short port, const std::string& event, const std::string& delivery,
                              const std::string& body, const std::string& secret = kSecret) {
  std::map<std::string, std::string> headers{
      {"Content-Type", "application/json"}, {"X-GitHub-Event", event}, {"X-GitHub-Delivery", delivery}};
  if (!secret.empty()) headers["X-Hub-Signature-256"] = "sha256=" + server::webhook::hmac_sha256_hex(secret, body);
  return http_request(port, "POST", "/webhooks/github", headers, body);
}

inline nlohmann::json issue_payload(const std::string& action, const std::string& sender,
                                    const std::vector<std::string>& labels = {}, const std::string& body = seed_body(),
                                    const std::string& title = kSeedTitle) {
  nlohmann::json l = nlohmann::json::array();
  for (const auto& name : labels) l.push_back({{"name", name}});
  return {{"action", action},
          {"issue", {{"number", kSeedNumber}, {"title", title}, {"body", body}, {"labels", l}}},
          {"repository", {{"full_name", kRepo}}},
          {"sender", {{"login", sender}}}};
}

inline nlohmann::json label_event(const std::string& action, const std::string& label, const std::string& sender,
                                  const std::vector<std::string>& labels) {
  auto p = issue_payload(action, sender, labels);
  p["label"] = {{"name", label}};
  return p;
}

inline nlohmann::json comment_payload(const std::string& comment, const std::string& sender,
                                      const std::vector<std::string>& labels) {
  auto p = issue_payload("created", sender, labels);
  p["comment"] = {{"id", 1}, {"body", comment}};
  return p;
}

inline bool wait_until(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return pred();
}

inline nlohmann::json outbox(unsigned short port, const std::string& state = {}) {
  auto r = http_call(port, "GET", "/api/v1/outbox" + (state.empty() ? std::string{} : "?state=" + state));
  return nlohmann::json::parse(r.body);
}

// True once nothing is pending.
inline bool drain(unsigned short port, std::chrono::milliseconds timeout = std::chrono::seconds(15)) {
  return wait_until([&] { return outbox(port)["counts"]["pending"] == 0; }, timeout);
}

// The values a gated LabelResult withheld (its JSON's "withheld"), sorted; each must be of layer "gate" with a reason
// that says it was withheld.
inline std::vector<std::string> withheld_values(const nlohmann::json& result) {
  std::vector<std::string> values;
  for (const auto& w : result.value("withheld", nlohmann::json::array())) {
    values.push_back(w["value"].get<std::string>());
    EXPECT_EQ(w["layer"], "gate");
    EXPECT_EQ(w["reason"].get<std::string>().rfind("Withheld: ", 0), 0u) << w.dump();
  }
  std::sort(values.begin(), values.end());
  return values;
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

}  // namespace perftriage::testing
