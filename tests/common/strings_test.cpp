// common/strings.hpp: ASCII-only case folding, what trim strips, join and split on the edges, edit distance.
#include "common/strings.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace perftriage {
namespace {

TEST(Strings, LowerTouchesOnlyAsciiLetters) {
  EXPECT_EQ(lower("A100-SXM4 Max"), "a100-sxm4 max");
  EXPECT_EQ(lower("\xC3\x84rger"), "\xC3\x84rger");  // UTF-8 bytes pass unchanged
  EXPECT_EQ(lower(""), "");
}

TEST(Strings, TrimStripsAsciiWhitespaceOrTheGivenCharacters) {
  EXPECT_EQ(trim(" \t\r\n\v\f x y \n"), "x y");
  EXPECT_EQ(trim("   "), "");
  EXPECT_EQ(trim("x\n", " \t"), "x\n");
  EXPECT_EQ(trim("##x#", "#"), "x");
  EXPECT_EQ(trim_if("--x-", [](char c) { return c == '-'; }), "x");
}

TEST(Strings, CaseInsensitiveComparisons) {
  EXPECT_TRUE(iequals("Content-Type", "content-TYPE"));
  EXPECT_FALSE(iequals("abc", "abcd"));
  EXPECT_TRUE(istarts_with("HTTPS://x", "https://"));
  EXPECT_FALSE(istarts_with("ht", "https://"));
  EXPECT_TRUE(iends_with("RESULTS.CSV", ".csv"));
  EXPECT_FALSE(iends_with("csv", ".csv"));
}

TEST(Strings, JoinPutsTheSeparatorBetweenEveryTwoElements) {
  EXPECT_EQ(join(std::vector<std::string>{"a", "", "b"}, ", "), "a, , b");
  EXPECT_EQ(join(std::vector<std::string>{}, ", "), "");
  EXPECT_EQ(join(std::set<std::string>{"b", "a"}, "/"), "a/b");
  EXPECT_EQ(join(std::vector<std::string_view>{"x"}, "-"), "x");
}

TEST(Strings, SplitKeepsOrSkipsEmptyPieces) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
  EXPECT_EQ(split("/a//b/", '/', EmptyParts::skip), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(split("", ',', EmptyParts::skip).empty());
}

TEST(Strings, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("platfrom", "platform"), 2u);
  EXPECT_EQ(edit_distance("", "run"), 3u);
  EXPECT_EQ(edit_distance("listen", "listen"), 0u);
  EXPECT_EQ(edit_distance("tag", "tags"), 1u);
}

}  // namespace
}  // namespace perftriage
