#include "server/app/run_fields.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

namespace perftriage::server {
namespace {

constexpr std::time_t kEarliest = 946684800;  // 2000-01-01T00:00:00Z
constexpr std::time_t kFutureSlack = 24 * 3600;

Error bad_time(std::string_view text, std::string why) {
  return make_error(ErrorKind::invalid_input, "bad_created_at",
                    "created_at '" + std::string(text.substr(0, 64)) + "' " + why, {}, 0, "created_at");
}

// The number of `digits` digits at `at`, or nullopt.
std::optional<int> number(std::string_view s, std::size_t at, std::size_t digits) {
  if (at + digits > s.size()) return std::nullopt;
  int v = 0;
  const auto r = std::from_chars(s.data() + at, s.data() + at + digits, v);
  if (r.ec != std::errc() || r.ptr != s.data() + at + digits) return std::nullopt;
  return v;
}

bool is(std::string_view s, std::size_t at, char c) { return at < s.size() && s[at] == c; }

struct Parsed {
  std::tm tm{};
  long offset_s = 0;  // east of UTC
};

// "+HH:MM", "-HH:MM", "Z" or "z" at `at`, ending the text.
std::optional<long> zone(std::string_view s, std::size_t at) {
  if (at + 1 == s.size() && (s[at] == 'Z' || s[at] == 'z')) return 0L;
  if (at + 6 != s.size() || (s[at] != '+' && s[at] != '-') || !is(s, at + 3, ':')) return std::nullopt;
  const auto h = number(s, at + 1, 2);
  const auto m = number(s, at + 4, 2);
  if (!h || !m || *h > 23 || *m > 59) return std::nullopt;
  const long off = *h * 3600L + *m * 60L;
  return s[at] == '-' ? -off : off;
}

std::optional<Parsed> parse(std::string_view s) {
  Parsed p;
  const auto y = number(s, 0, 4), mo = number(s, 5, 2), d = number(s, 8, 2);
  if (!y || !mo || !d || !is(s, 4, '-') || !is(s, 7, '-')) return std::nullopt;
  p.tm.tm_year = *y - 1900;
  p.tm.tm_mon = *mo - 1;
  p.tm.tm_mday = *d;
  if (s.size() == 10) return p;
  if (s.size() < 20 || (s[10] != 'T' && s[10] != 't' && s[10] != ' ')) return std::nullopt;
  const auto h = number(s, 11, 2), mi = number(s, 14, 2), se = number(s, 17, 2);
  if (!h || !mi || !se || !is(s, 13, ':') || !is(s, 16, ':') || *h > 23 || *mi > 59 || *se > 60) return std::nullopt;
  p.tm.tm_hour = *h;
  p.tm.tm_min = *mi;
  p.tm.tm_sec = std::min(*se, 59);  // a leap second is the second before it
  std::size_t at = 19;
  if (is(s, at, '.')) {
    ++at;
    const std::size_t digits = at;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9') ++at;
    if (at == digits) return std::nullopt;
  }
  const auto off = zone(s, at);
  if (!off) return std::nullopt;
  p.offset_s = *off;
  return p;
}

Result<void> check_name(std::string_view v, std::size_t max, const char* code, const char* column, const char* what) {
  const bool ok = !v.empty() && v.size() <= max && std::all_of(v.begin(), v.end(), [](char c) {
    return c > ' ' && c < 0x7f && c != '/' && c != '\\' && c != '?' && c != '#' && c != '%';
  });
  if (ok) return {};
  return make_error(ErrorKind::invalid_input, code,
                    std::string(what) + " must be 1 to " + std::to_string(max) +
                        " printable ASCII characters without spaces or / \\ ? # %",
                    {}, 0, column);
}

}  // namespace

Result<std::string> normalize_created_at(std::string_view text, std::time_t now) {
  if (text.empty()) return std::string();
  auto p = parse(text);
  if (!p) return bad_time(text, "is not an RFC 3339 time (2026-10-01T03:00:00Z) or a date (2026-10-01)");
  std::tm probe = p->tm;
  const std::time_t local = timegm(&probe);  // normalizes: 2026-02-30 becomes March 2nd
  if (probe.tm_mday != p->tm.tm_mday || probe.tm_mon != p->tm.tm_mon) return bad_time(text, "is not a date");
  const std::time_t utc = local - p->offset_s;
  if (utc < kEarliest) return bad_time(text, "is before 2000");
  if (utc > now + kFutureSlack) return bad_time(text, "is more than a day in the future");
  std::tm out{};
  gmtime_r(&utc, &out);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &out);
  return std::string(buf);
}

Result<void> check_run_key(std::string_view key) { return check_name(key, 128, "bad_run", "run", "a run key"); }

Result<void> check_platform(std::string_view platform) {
  return check_name(platform, 64, "bad_platform", "platform", "a platform");
}

}  // namespace perftriage::server
