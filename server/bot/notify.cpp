#include "server/bot/notify.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include "schema/tracking_store.hpp"
#include "server/bot/webhook.hpp"

namespace perftriage::server {
namespace {

constexpr std::int64_t kMaxAttempts = 8;
constexpr long kTimeoutMs = 10000;

std::size_t discard(char*, std::size_t size, std::size_t n, void*) { return size * n; }

// One POST; "" when the receiver answered 2xx, else why not.
std::string post(const std::string& url, const std::string& body, const std::string& event, std::int64_t id,
                 const std::string& signature) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return "curl_easy_init failed";
  curl_slist* raw = nullptr;
  for (const std::string& h : {std::string("Content-Type: application/json"), "X-Perftriage-Event: " + event,
                               "X-Perftriage-Delivery: " + std::to_string(id), std::string("User-Agent: perftriage")}) {
    raw = curl_slist_append(raw, h.c_str());
  }
  if (!signature.empty()) raw = curl_slist_append(raw, ("X-Perftriage-Signature-256: " + signature).c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(raw, curl_slist_free_all);
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");  // never file:// or another scheme
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, kTimeoutMs);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) return curl_easy_strerror(rc);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  return status >= 200 && status < 300 ? std::string() : "HTTP " + std::to_string(status);
}

}  // namespace

std::string notification_signature(const std::string& secret, const std::string& body) {
  return secret.empty() ? std::string() : "sha256=" + webhook::hmac_sha256_hex(secret, body);
}

Result<std::int64_t> send_notifications(AppContext& app, std::int64_t now_ms) {
  if (app.settings().notify.urls.empty()) return 0;
  std::vector<schema::Notification> due;
  {
    PT_ASSIGN(auto store, app.store());
    PT_ASSIGN(due, schema::due_notifications(store->db(), now_ms));
  }
  for (const auto& n : due) {
    // No database connection is held while the receiver answers (up to the timeout).
    const std::string error =
        post(n.url, n.body, n.event, n.id, notification_signature(app.settings().notify.secret, n.body));
    const std::int64_t tries = n.attempts + 1;
    const std::int64_t next = error.empty()           ? 0
                              : tries >= kMaxAttempts ? -1
                                                      : now_ms + std::min<std::int64_t>(3600000, 1000LL << tries);
    PT_ASSIGN(auto store, app.store());
    PT_ASSIGN(auto tx, schema::Transaction::begin(store->db()));
    PT_TRY(schema::record_notification_attempt(store->db(), n.id, error.empty(), next, error));
    PT_TRY(tx.commit());
  }
  return static_cast<std::int64_t>(due.size());
}

}  // namespace perftriage::server
