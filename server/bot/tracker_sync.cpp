#include "server/bot/tracker_sync.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>
#include <utility>

#include "common/bounded_json.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

bool digits(std::string_view s, std::size_t from, std::size_t n) {
  for (std::size_t i = from; i < from + n; ++i) {
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

int number_at(std::string_view s, std::size_t from, std::size_t n) {
  int v = 0;
  for (std::size_t i = from; i < from + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

// "YYYY-MM-DDTHH:MM:SSZ", GitHub's own spelling: the one a cursor is compared in (as text, which orders it).
bool is_iso_utc(std::string_view s) {
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z')
    return false;
  if (!digits(s, 0, 4) || !digits(s, 5, 2) || !digits(s, 8, 2) || !digits(s, 11, 2) || !digits(s, 14, 2) ||
      !digits(s, 17, 2))
    return false;
  const int month = number_at(s, 5, 2), day = number_at(s, 8, 2);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && number_at(s, 11, 2) < 24 && number_at(s, 14, 2) < 60 &&
         number_at(s, 17, 2) < 61;
}

std::string str_or_empty(const json& item, const char* key) {
  const auto it = item.find(key);
  return it != item.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

// The label names of an issue: objects with a "name" (GitHub's shape) or plain strings, at most kTrackerMaxLabels.
std::vector<std::string> label_names(const json& item, bool& cut) {
  std::vector<std::string> out;
  const auto it = item.find("labels");
  if (it == item.end() || !it->is_array()) return out;
  for (const auto& l : *it) {
    const json* name = l.is_string() ? &l : nullptr;
    if (l.is_object()) {
      const auto n = l.find("name");
      if (n != l.end() && n->is_string()) name = &*n;
    }
    if (!name) continue;
    if (out.size() == kTrackerMaxLabels) {
      cut = true;
      break;
    }
    out.push_back(cut_utf8(name->get_ref<const std::string&>(), kTrackerLabelChars, kTrackerLabelChars * 4, cut));
  }
  return out;
}

std::optional<schema::TrackerIssue> read_issue(const json& item, const std::string& repo, bool& cut) {
  const auto number = item.find("number");
  if (number == item.end() || !number->is_number_integer() || number->get<std::int64_t>() <= 0) return std::nullopt;
  schema::TrackerIssue issue;
  issue.repo = repo;
  issue.number = number->get<std::int64_t>();
  issue.title = cut_utf8(str_or_empty(item, "title"), kTrackerTitleChars, kTrackerTitleChars * 4, cut);
  issue.body = cut_utf8(str_or_empty(item, "body"), kTrackerBodyBytes, kTrackerBodyBytes, cut);  // null: ""
  issue.labels = label_names(item, cut);
  issue.state = str_or_empty(item, "state") == "closed" ? "closed" : "open";
  bool ignored = false;
  issue.updated_at = cut_utf8(str_or_empty(item, "updated_at"), 64, 64, ignored);
  return issue;
}

// What the next request asks since: the newest updated_at stored, else the --since asked.
const std::string& request_since(const schema::TrackerSyncState& state) {
  return state.cursor_updated_at.empty() ? state.since : state.cursor_updated_at;
}

ErrorKind kind_of(const GitHubResponse& r) {
  switch (r.status) {
    case 401: return ErrorKind::unauthorized;
    case 403: return ErrorKind::forbidden;
    case 404: return ErrorKind::not_found;
    case 0:
    case 429: return ErrorKind::unavailable;
    default: return r.status >= 500 ? ErrorKind::unavailable : ErrorKind::unprocessable;
  }
}

void sleep_ms(const TrackerSyncOptions& o, std::int64_t ms) {
  if (o.sleep) {
    o.sleep(ms);
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
}

void log_line(const TrackerSyncOptions& o, const std::string& line) {
  if (o.log) o.log(line);
}

// One page, with the retries and rate-limit waits it takes; an Error when the sync must stop.
Result<GitHubResponse> fetch_page(GitHubClient& client, const TrackerSyncOptions& o, const std::string& since,
                                  std::int64_t page, TrackerSyncReport& report) {
  const std::string what = "GET /repos/" + o.repo + "/issues page " + std::to_string(page) +
                           (since.empty() ? std::string{} : " since " + since);
  std::int64_t failures = 0, limits = 0;
  for (;;) {
    auto r = client.list_issues(o.repo, since, static_cast<int>(page), o.per_page);
    if (r.ok()) return r;
    if (r.too_large) {  // the same page would be as large again
      return make_error(ErrorKind::too_large, "github_answer_too_large", what + ": " + r.transport_error);
    }
    const Outcome outcome = decide(r, failures + 1, unix_ms(), o.retry);
    if (outcome.kind == Outcome::Kind::failed) {
      return make_error(kind_of(r), r.status == 0 || r.status >= 500 ? "github_unavailable" : "github_refused",
                        what + ": " + outcome.error);
    }
    if (outcome.pause_all) {  // a rate limit: at least a second, so a reset in the past cannot spin
      const std::int64_t wait = std::max<std::int64_t>(outcome.delay_ms, 1000);
      if (wait > o.max_wait_ms) {
        return make_error(ErrorKind::unavailable, "rate_limited",
                          what + ": GitHub's rate limit allows the next request in " + std::to_string(wait / 1000) +
                              " s, over the longest wait of " + std::to_string(o.max_wait_ms / 1000) +
                              " s (--max-wait-s); the progress is saved: run it again then (" + outcome.error + ")");
      }
      if (++limits > 10) {
        return make_error(ErrorKind::unavailable, "rate_limited",
                          what + ": still rate limited after 10 waits; the progress is saved (" + outcome.error + ")");
      }
      ++report.rate_limit_waits;
      report.waited_ms += wait;
      log_line(o, "tracker sync: rate limited; waiting " + std::to_string((wait + 999) / 1000) + " s");
      sleep_ms(o, wait);
    } else {
      ++failures;
      ++report.retries;
      log_line(o, "tracker sync: " + what + ": " + outcome.error + "; retrying in " + std::to_string(outcome.delay_ms) +
                      " ms");
      sleep_ms(o, outcome.delay_ms);
    }
  }
}

// Where this run starts from the saved row and the --since asked.
schema::TrackerSyncState plan(const std::optional<schema::TrackerSyncState>& saved, const TrackerSyncOptions& o,
                              std::string& mode) {
  if (!saved || (!o.since.empty() && o.since != saved->since)) {
    mode = "full";
    return schema::TrackerSyncState{o.repo, o.since, {}, 1, false, {}, {}};
  }
  schema::TrackerSyncState state = *saved;
  state.repo = o.repo;
  mode = state.finished ? "incremental" : "resumed";
  if (state.finished) state.next_page = 1;
  state.finished = false;
  state.last_error.clear();
  return state;
}

// The progress after a page with `items` items (pull requests included) was read.
void advance(schema::TrackerSyncState& state, const IssuePage& page, std::size_t items, const GitHubResponse& r,
             int per_page) {
  const std::string current = request_since(state);
  if (!page.newest_updated_at.empty() && page.newest_updated_at > current) {
    state.cursor_updated_at = page.newest_updated_at;
    state.next_page = 1;
  } else {
    ++state.next_page;  // every item shares the cursor's second (or has none): the next page of the same since
  }
  const std::string link = r.header("link");
  const bool more = items >= static_cast<std::size_t>(per_page) && link_has_next(link).value_or(true);
  if (!more) {
    state.finished = true;
    state.next_page = 1;
  }
}

Result<TrackerSyncReport> stopped(schema::Database& db, schema::TrackerSyncState state, TrackerSyncReport report,
                                  Error error) {
  state.last_error = error.message;
  PT_TRY(schema::save_tracker_sync(db, state));
  report.state = std::move(state);
  report.error = std::move(error);
  PT_ASSIGN(report.stored, schema::count_tracker_issues(db, report.repo));
  return report;
}

// One page: fetched, read, stored with the progress that follows it. False once the list has ended.
Result<bool> sync_page(schema::Database& db, GitHubClient& client, const TrackerSyncOptions& o,
                       schema::TrackerSyncState& state, TrackerSyncReport& report) {
  const std::string since = request_since(state);
  PT_ASSIGN(const auto response, fetch_page(client, o, since, state.next_page, report));
  PT_ASSIGN(const auto items,
            parse_bounded_json(response.body, "GitHub's issue list", JsonLimits::bytes(kTrackerPageBytes)));
  if (!items.is_array()) {
    return make_error(ErrorKind::unprocessable, "bad_issue_list", "GitHub's issue list is not a JSON array");
  }
  const IssuePage page = parse_issue_page(items, o.repo);
  const std::int64_t asked = state.next_page;
  advance(state, page, items.size(), response, o.per_page);
  PT_ASSIGN(const auto written, schema::store_tracker_page(db, page.issues, state));
  ++report.pages;
  report.issues += written;
  report.pull_requests += page.pull_requests;
  report.invalid += page.invalid;
  report.truncated += page.truncated;
  log_line(o, "tracker sync: " + o.repo + ": page " + std::to_string(asked) +
                  (since.empty() ? std::string{} : " since " + since) + ": " + std::to_string(written) + " issues, " +
                  std::to_string(page.pull_requests) + " pull requests skipped");
  return !state.finished;
}

}  // namespace

Result<std::string> normalize_since(std::string_view since) {
  if (since.empty()) return std::string{};
  std::string iso(since);
  if (iso.size() == 10) iso += "T00:00:00Z";
  if (!is_iso_utc(iso)) {
    return make_error(
        ErrorKind::invalid_input, "bad_since",
        "--since is a date (YYYY-MM-DD) or a UTC time (YYYY-MM-DDTHH:MM:SSZ), not '" + std::string(since) + "'", {}, 0,
        "since");
  }
  return iso;
}

std::optional<bool> link_has_next(std::string_view link) {
  if (link.empty()) return std::nullopt;
  // <https://api.github.com/...&page=2>; rel="next", <...>; rel="last"
  for (std::size_t at = link.find("rel="); at != std::string_view::npos; at = link.find("rel=", at + 4)) {
    std::string_view value = link.substr(at + 4);
    if (!value.empty() && value.front() == '"') value.remove_prefix(1);
    const auto end = value.find_first_of("\",;");
    for (std::string_view rel = value.substr(0, end); !rel.empty();) {  // rel may list several: "next last"
      const auto space = rel.find(' ');
      if (rel.substr(0, space) == "next") return true;
      rel = space == std::string_view::npos ? std::string_view{} : rel.substr(space + 1);
    }
  }
  return false;
}

IssuePage parse_issue_page(const json& items, const std::string& repo) {
  IssuePage page;
  if (!items.is_array()) return page;
  for (const auto& item : items) {
    if (!item.is_object()) {
      ++page.invalid;
      continue;
    }
    const std::string updated = str_or_empty(item, "updated_at");
    if (is_iso_utc(updated) && updated > page.newest_updated_at) page.newest_updated_at = updated;
    if (item.contains("pull_request")) {
      ++page.pull_requests;
      continue;
    }
    bool cut = false;
    auto issue = read_issue(item, repo, cut);
    if (!issue) {
      ++page.invalid;
      continue;
    }
    if (cut) ++page.truncated;
    page.issues.push_back(std::move(*issue));
  }
  return page;
}

json to_json(const TrackerSyncReport& r) {
  return {{"repo", r.repo},
          {"mode", r.mode},
          {"since", r.since},
          {"pages", r.pages},
          {"issues", r.issues},
          {"pull_requests", r.pull_requests},
          {"invalid", r.invalid},
          {"truncated", r.truncated},
          {"rate_limit_waits", r.rate_limit_waits},
          {"waited_ms", r.waited_ms},
          {"retries", r.retries},
          {"stored", r.stored},
          {"finished", r.state.finished},
          {"cursor", r.state.cursor_updated_at},
          {"next_page", r.state.next_page},
          {"error", r.error ? json{{"code", r.error->code}, {"message", r.error->message}} : json()}};
}

Result<TrackerSyncReport> sync_tracker(schema::Database& db, GitHubClient& client, const TrackerSyncOptions& o) {
  if (!is_github_repo(o.repo)) {
    return make_error(ErrorKind::invalid_input, "bad_repo",
                      "--repo is a GitHub repository as owner/name, not '" + o.repo + "'", {}, 0, "repo");
  }
  PT_ASSIGN(const auto since, normalize_since(o.since));
  TrackerSyncOptions options = o;
  options.since = since;
  TrackerSyncReport report;
  report.repo = o.repo;
  PT_ASSIGN(const auto saved, schema::find_tracker_sync(db, o.repo));
  schema::TrackerSyncState state = plan(saved, options, report.mode);
  report.since = request_since(state);
  PT_TRY(schema::save_tracker_sync(db, state));
  while (options.max_pages <= 0 || report.pages < options.max_pages) {
    auto more = sync_page(db, client, options, state, report);
    if (!more) {
      if (more.error().kind == ErrorKind::internal) return std::move(more).error();  // the database: not resumable
      return stopped(db, state, std::move(report), std::move(more).error());
    }
    if (!*more) break;
  }
  report.state = state;
  PT_ASSIGN(report.stored, schema::count_tracker_issues(db, o.repo));
  return report;
}

}  // namespace perftriage::server
