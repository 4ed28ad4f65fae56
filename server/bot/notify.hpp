#pragma once
// Signed notifications of tracking issues ([notify] urls, settings.hpp NotifySettings): one JSON POST per queued row
// of `notifications` (migration 013), signed like GitHub's webhooks so a receiver can check it the same way:
//   X-Perftriage-Event: opened | cases_added | closed | reopened
//   X-Perftriage-Delivery: the row's id (the same on a retry: deduplicate by it)
//   X-Perftriage-Signature-256: sha256=<hex HMAC-SHA256 of the body with [notify] secret_file's key> (when set)
// A 2xx marks it sent; anything else is retried after 2^attempts seconds (at most an hour), `failed` after 8 tries.
#include <cstdint>
#include <string>

#include "common/result.hpp"
#include "server/app/app_context.hpp"

namespace perftriage::server {

// "sha256=..." for `body`, "" without a secret.
std::string notification_signature(const std::string& secret, const std::string& body);

// Sends the due notifications; returns how many were attempted.
Result<std::int64_t> send_notifications(AppContext& app, std::int64_t now_ms);

}  // namespace perftriage::server
