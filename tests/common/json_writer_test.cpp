// common/json_writer.hpp: the text is what dump_json writes for the same document (escaping, invalid UTF-8,
// number formatting, NaN and infinities as null), and commas land between members and elements only.
#include "common/json_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "common/json_text.hpp"

namespace perftriage {
namespace {

std::string written(std::string_view s) { return JsonWriter{}.string(s).take(); }
std::string written(double v) { return JsonWriter{}.number(v).take(); }
std::string dumped(std::string_view s) { return dump_json(nlohmann::json(std::string(s))); }

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(written("a\"b\\c/d"), R"("a\"b\\c/d")");
  EXPECT_EQ(written("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(written(std::string_view("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
  EXPECT_EQ(written("\x1b[31m"), R"("\u001b[31m")");
  for (int c = 0; c < 0x80; ++c) {
    const std::string s(1, static_cast<char>(c));
    EXPECT_EQ(written(s), dumped(s)) << "byte " << c;
  }
}

TEST(JsonWriter, PassesValidUtf8Through) {
  EXPECT_EQ(written("\xC3\x84rger \xE2\x86\x92 \xF0\x9F\x9A\x80"), "\"\xC3\x84rger \xE2\x86\x92 \xF0\x9F\x9A\x80\"");
  EXPECT_EQ(written("\xC3\x84\n"), "\"\xC3\x84\\n\"");
}

TEST(JsonWriter, ReplacesInvalidUtf8AsDumpJsonDoes) {
  for (const char* s : {"\xFF", "a\xC3", "\xC3(", "\xE0\x80\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xC0\xAF",
                        "\xE2\x86", "x\xF0\x9F\x9Ay", "\x80\x80"}) {
    EXPECT_EQ(written(s), dumped(s)) << s;
    EXPECT_NE(written(s).find("\xEF\xBF\xBD"), std::string::npos) << s;  // U+FFFD
  }
}

TEST(JsonWriter, AnyBytesComeOutAsDumpJsonWritesThem) {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> length(0, 12), pick(0, 9), any(0, 255);
  const unsigned char common[] = {'a', '"', '\\', '\n', 0x01, 0xC3, 0x84, 0xE2, 0x86, 0x80};
  for (int i = 0; i < 20000; ++i) {
    std::string s(static_cast<std::size_t>(length(rng)), '\0');
    for (char& ch : s) ch = static_cast<char>(pick(rng) < 5 ? common[pick(rng)] : any(rng));
    ASSERT_EQ(written(s), dumped(s)) << testing::PrintToString(s);
    const std::string replacement = "\xEF\xBF\xBD";  // U+FFFD, which dump_json puts where a sequence is invalid
    if (s.find(replacement) == std::string::npos) {
      ASSERT_EQ(valid_utf8(s), dumped(s).find(replacement) == std::string::npos) << testing::PrintToString(s);
    }
  }
}

TEST(JsonWriter, ValidUtf8FollowsRfc3629) {
  EXPECT_TRUE(valid_utf8(""));
  EXPECT_TRUE(valid_utf8("\x7F\xC2\x80\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"));
  EXPECT_FALSE(valid_utf8("\xC1\xBF"));          // overlong
  EXPECT_FALSE(valid_utf8("\xE0\x9F\xBF"));      // overlong
  EXPECT_FALSE(valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(valid_utf8("\xF5\x80\x80\x80"));
  EXPECT_FALSE(valid_utf8("\xE2\x86"));  // cut short
  EXPECT_FALSE(valid_utf8("\x80"));
}

TEST(JsonWriter, DoublesAreFormattedAsNlohmannDoes) {
  EXPECT_EQ(written(1.0), "1.0");
  EXPECT_EQ(written(-0.0), "-0.0");
  EXPECT_EQ(written(0.1), "0.1");
  EXPECT_EQ(written(1e-5), "1e-05");
  EXPECT_EQ(written(1e15), "1e+15");  // fmt's "{}" writes 1000000000000000
  EXPECT_EQ(written(1.5e300), "1.5e+300");
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> exponent(-30, 30);
  for (int i = 0; i < 100000; ++i) {
    std::uint64_t bits = rng();
    double any = 0;
    std::memcpy(&any, &bits, sizeof any);
    const double near = std::exp(exponent(rng));
    for (double v : {any, near}) {
      if (std::isfinite(v)) {
        ASSERT_EQ(written(v), dump_json(nlohmann::json(v))) << bits;
      }
    }
  }
}

TEST(JsonWriter, NanAndInfinitiesAreNullAsInDumpJson) {
  for (double v : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(written(v), "null");
    EXPECT_EQ(dump_json(nlohmann::json(v)), "null");
  }
  EXPECT_EQ(JsonWriter{}.number(std::optional<double>{}).take(), "null");
  EXPECT_EQ(JsonWriter{}.number(std::optional<double>{2.5}).take(), "2.5");
}

TEST(JsonWriter, IntegersAndBooleans) {
  EXPECT_EQ(JsonWriter{}.integer(std::numeric_limits<std::int64_t>::min()).take(), "-9223372036854775808");
  EXPECT_EQ(JsonWriter{}.integer(0).take(), "0");
  EXPECT_EQ(JsonWriter{}.boolean(true).take(), "true");
  EXPECT_EQ(JsonWriter{}.boolean(false).take(), "false");
}

TEST(JsonWriter, CommasSeparateMembersAndElementsOnly) {
  JsonWriter w;
  w.begin_object();
  w.member("a", std::int64_t{1}).member("b", "x").member("c", nullptr);
  w.key("empty").begin_array().end_array();
  w.key("list").begin_array().integer(1).begin_object().end_object().begin_array().null().end_array().string("s");
  w.end_array();
  w.key("o").begin_object().member("d", 2.0).member("t", true).end_object();
  w.end_object();
  const std::string expected = R"({"a":1,"b":"x","c":null,"empty":[],"list":[1,{},[null],"s"],"o":{"d":2.0,"t":true}})";
  EXPECT_EQ(w.text(), expected);
  EXPECT_EQ(dump_json(nlohmann::json::parse(w.text())), expected);  // keys written in byte order: same as a dump
}

}  // namespace
}  // namespace perftriage
