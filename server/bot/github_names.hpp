#pragma once
// GitHub's grammar for the names the bot builds URL paths and outbox rows from, in one place: the webhook checks a
// delivery's fields with it before anything is recorded or queued (server/bot/webhook.cpp), and the GitHub client
// checks every request with it again before sending (server/bot/github_client.cpp), so a row written by an older
// version, or by a path that forgot to check, still cannot steer the token to another API path.
#include <cstdint>
#include <string_view>

namespace perftriage::server {

// "owner/name": the owner is 1-39 letters, digits or single inner hyphens; the name is 1-100 of letters, digits, '.',
// '-', '_' and not "." or "..". Anything else ("../../x", "a/b/milestones?x=", "a/b/c") is refused.
bool is_github_repo(std::string_view repo) noexcept;

// An issue, pull-request or comment number: GitHub assigns them from 1 up (never 0 or negative).
constexpr bool is_github_number(std::int64_t number) noexcept { return number > 0; }

// A label name: 1-50 characters (code points, as GitHub counts them).
bool is_github_label(std::string_view name) noexcept;

// A commit: 7 to 40 hexadecimal digits (an abbreviated or a full SHA-1), lower case as git prints them.
bool is_commit_sha(std::string_view sha) noexcept;

}  // namespace perftriage::server
