// The fields that order and name a run: created_at in one UTC form or refused, run keys and platforms bounded.
#include <gtest/gtest.h>

#include "server/app/run_fields.hpp"

namespace perftriage::server {
namespace {

constexpr std::time_t kNow = 1796515200;  // 2026-12-06T00:00:00Z

std::string normalized(std::string_view text) {
  auto r = normalize_created_at(text, kNow);
  return r ? *r : "error: " + r.error().code;
}

TEST(RunFields, CreatedAtBecomesOneUtcForm) {
  EXPECT_EQ(normalized(""), "");
  EXPECT_EQ(normalized("2026-10-01T03:00:00Z"), "2026-10-01T03:00:00Z");
  EXPECT_EQ(normalized("2026-10-01t03:00:00z"), "2026-10-01T03:00:00Z");
  EXPECT_EQ(normalized("2026-10-01 03:00:00Z"), "2026-10-01T03:00:00Z");
  EXPECT_EQ(normalized("2026-10-01T03:00:00.123456Z"), "2026-10-01T03:00:00Z");
  EXPECT_EQ(normalized("2026-10-01T05:30:00+02:30"), "2026-10-01T03:00:00Z");
  EXPECT_EQ(normalized("2026-09-30T23:00:00-04:00"), "2026-10-01T03:00:00Z");
  EXPECT_EQ(normalized("2026-10-01"), "2026-10-01T00:00:00Z");
  EXPECT_EQ(normalized("2016-12-31T23:59:60Z"), "2016-12-31T23:59:59Z");
  EXPECT_EQ(normalized("2026-12-06T23:00:00Z"), "2026-12-06T23:00:00Z");  // later today: within the day's slack
}

TEST(RunFields, CreatedAtThatIsNoTimeOrOutOfRangeIsRefused) {
  for (const char* bad :
       {"zzzz", "2026-13-45T99:99:99Z", "2026-02-30T00:00:00Z", "2026-10-01T03:00:00", "2026-10-01T03:00Z",
        "2026-10-01T03:00:00+2", "2026-10-01T03:00:00.Z", "26-10-01", "2026-10-01T03:00:00Zjunk",
        "9999-12-31T00:00:00Z", "1999-12-31T23:59:59Z", "2026-12-08T00:00:00Z", "\xE2\x9C\x93"}) {
    const auto r = normalize_created_at(bad, kNow);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, "bad_created_at") << bad;
    EXPECT_EQ(r.error().column, "created_at");
    EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
  }
}

TEST(RunFields, RunKeysAndPlatformsAreBoundedPathSegments) {
  for (const char* ok : {"bmg-release-2.12", "r1", "2.12.0+xpu:nightly_20261201", "ref-xpu"}) {
    EXPECT_TRUE(check_run_key(ok)) << ok;
  }
  EXPECT_TRUE(check_run_key(std::string(128, 'k')));
  for (const std::string bad : {std::string(), std::string(129, 'k'), std::string(5000, 'k'), std::string("a/b"),
                                std::string("a b"), std::string("a?b"), std::string("a#b"), std::string("a%2F"),
                                std::string("a\\b"), std::string("tab\there"), std::string("caf\xC3\xA9")}) {
    const auto r = check_run_key(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, "bad_run");
    EXPECT_EQ(r.error().column, "run");
  }
  EXPECT_TRUE(check_platform("BMG"));
  EXPECT_TRUE(check_platform(std::string(64, 'p')));
  EXPECT_EQ(check_platform(std::string(65, 'p')).error().code, "bad_platform");
  EXPECT_EQ(check_platform("Arc B580").error().column, "platform");
}

}  // namespace
}  // namespace perftriage::server
