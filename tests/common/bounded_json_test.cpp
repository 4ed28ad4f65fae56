#include "common/bounded_json.hpp"

#include <gtest/gtest.h>

#include <string>

namespace perftriage {
namespace {

std::string nested(std::size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

TEST(BoundedJson, AcceptsUpToTheDepthLimit) {
  auto ok = parse_bounded_json(nested(64), "test");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_TRUE(ok->is_array());
}

TEST(BoundedJson, RefusesOneLevelDeeperNamingTheLimit) {
  auto deep = parse_bounded_json(nested(65), "label request");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().code, "json_too_deep");
  EXPECT_EQ(deep.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(deep.error().message.find("label request"), std::string::npos);
  EXPECT_NE(deep.error().message.find("64"), std::string::npos);
}

TEST(BoundedJson, HundredThousandLevelsAreRefusedWithoutRecursion) {
  auto deep = parse_bounded_json("{\"a\":" + nested(100000) + "}", "meta");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().code, "json_too_deep");
}

TEST(BoundedJson, BracketsInsideStringsDoNotCount) {
  const std::string text = "{\"s\":\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"}";
  auto ok = parse_bounded_json(text, "test");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ((*ok)["s"].get<std::string>().size(), 2001u);
}

TEST(BoundedJson, RefusesTextOverTheSizeLimit) {
  auto big = parse_bounded_json(std::string(100, ' ') + "1", "webhook payload", JsonLimits::bytes(100));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code, "json_too_large");
  EXPECT_EQ(big.error().kind, ErrorKind::too_large);
}

TEST(BoundedJson, InvalidJsonIsBadJson) {
  auto bad = parse_bounded_json("{\"a\":", "test");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "bad_json");
}

TEST(BoundedJson, UnbalancedClosersDoNotUnderflow) { EXPECT_EQ(json_nesting_depth("]]]]}}}[", 64), 1u); }

}  // namespace
}  // namespace perftriage
