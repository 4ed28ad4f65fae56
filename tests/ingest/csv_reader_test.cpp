// The private splitter of ingest/: RFC 4180 behaviour, and the fused fast path equal to the plain one.
#include "ingest/csv_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <charconv>
#include <random>
#include <string>
#include <vector>

namespace csv = perftriage::ingest::csv;

namespace {

struct Rec {
  std::int64_t line;
  std::string text;
  bool unterminated;
  std::vector<std::string> cells;
  bool operator==(const Rec&) const = default;
};

std::vector<Rec> read_plain(const std::string& bytes) {
  std::vector<Rec> out;
  csv::RecordReader r(bytes);
  csv::Record rec;
  std::vector<std::string_view> cells;
  std::string scratch;
  while (r.next(rec)) {
    csv::split(rec, cells, scratch);
    out.push_back({rec.line, std::string(rec.text), rec.unterminated_quote, {cells.begin(), cells.end()}});
  }
  return out;
}

std::vector<Rec> read_fused(const std::string& bytes) {
  std::vector<Rec> out;
  csv::RecordReader r(bytes);
  csv::Record rec;
  std::vector<std::string_view> cells;
  std::string scratch;
  while (r.next_split(rec, cells, scratch))
    out.push_back({rec.line, std::string(rec.text), rec.unterminated_quote, {cells.begin(), cells.end()}});
  return out;
}

}  // namespace

TEST(CsvReader, QuotedCellsDoubledQuotesAndEmbeddedNewlines) {
  const std::string in = "a,\"b,\"\"c\"\"\",d\r\n\"multi\nline\",x\n , y ,\"\"\nlast";
  auto recs = read_fused(in);
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_EQ(recs[0].cells, (std::vector<std::string>{"a", "b,\"c\"", "d"}));
  EXPECT_EQ(recs[0].line, 1);
  EXPECT_EQ(recs[1].cells, (std::vector<std::string>{"multi\nline", "x"}));
  EXPECT_EQ(recs[1].line, 2);
  EXPECT_EQ(recs[2].cells, (std::vector<std::string>{"", "y", ""}));
  EXPECT_EQ(recs[2].line, 4);  // the quoted newline counted as a physical line
  EXPECT_EQ(recs[3].cells, (std::vector<std::string>{"last"}));
  EXPECT_EQ(recs[3].line, 5);
  EXPECT_EQ(recs, read_plain(in));
}

TEST(CsvReader, TripleQuotedReasonAndStrayQuotes) {
  const std::string in = "\"\"\"graph break: x\"\"\",ab\"c,\"q\"tail\n";
  auto recs = read_fused(in);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].cells, (std::vector<std::string>{"\"graph break: x\"", "ab\"c", "qtail"}));
}

TEST(CsvReader, UnterminatedQuoteIsReported) {
  auto recs = read_fused("a,b\n\"open,c\nd\n");
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_FALSE(recs[0].unterminated);
  EXPECT_TRUE(recs[1].unterminated);
}

TEST(CsvReader, Numbers) {
  std::optional<double> d;
  EXPECT_EQ(csv::parse_double(" 0.662224 ", d), csv::NumStatus::ok);
  EXPECT_DOUBLE_EQ(*d, 0.662224);
  EXPECT_EQ(csv::parse_double("+1e3", d), csv::NumStatus::ok);
  EXPECT_DOUBLE_EQ(*d, 1000.0);
  EXPECT_EQ(csv::parse_double("", d), csv::NumStatus::ok);
  EXPECT_FALSE(d.has_value());
  EXPECT_EQ(csv::parse_double("NaN", d), csv::NumStatus::ok);
  EXPECT_FALSE(d.has_value());
  EXPECT_EQ(csv::parse_double("-inf", d), csv::NumStatus::ok);
  EXPECT_FALSE(d.has_value());
  EXPECT_EQ(csv::parse_double("1,5", d), csv::NumStatus::bad);
  EXPECT_EQ(csv::parse_double("0x10", d), csv::NumStatus::bad);
  EXPECT_EQ(csv::parse_double("+", d), csv::NumStatus::bad);
  std::optional<std::int64_t> i;
  EXPECT_EQ(csv::parse_int("545", i), csv::NumStatus::ok);
  EXPECT_EQ(*i, 545);
  EXPECT_EQ(csv::parse_int("-3", i), csv::NumStatus::ok);
  EXPECT_EQ(*i, -3);
  EXPECT_EQ(csv::parse_int("16.0", i), csv::NumStatus::ok);
  EXPECT_EQ(*i, 16);
  EXPECT_EQ(csv::parse_int("16.5", i), csv::NumStatus::bad);
  EXPECT_EQ(csv::parse_int("99999999999999999999999", i), csv::NumStatus::bad);
  EXPECT_EQ(csv::parse_int("x", i), csv::NumStatus::bad);
}

TEST(CsvReader, FusedSplitterEqualsPlainOnRandomInput) {
  std::mt19937 rng(4242);
  const std::string alphabet = "ab,,,\"\"\n\r 0123456789.#";
  for (int n = 0; n < 3000; ++n) {
    std::string s(rng() % 120, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    if (n % 7 == 0) s = "\xEF\xBB\xBF" + s;
    ASSERT_EQ(read_fused(s), read_plain(s)) << "input: " << s;
  }
}

TEST(CsvReader, FastDecimalPathMatchesFromChars) {
  std::mt19937_64 rng(31337);
  const int precisions[] = {6, 4, 0, 9, 2, 12};
  for (int n = 0; n < 20000; ++n) {
    const double x = std::ldexp(static_cast<double>(rng() % 1000000007), -static_cast<int>(rng() % 40)) *
                     ((rng() & 1) != 0 ? -1.0 : 1.0);
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, precisions[n % 6]);
    const std::string_view text(buf, static_cast<std::size_t>(res.ptr - buf));
    double want = 0;
    std::from_chars(text.data(), text.data() + text.size(), want);
    std::optional<double> got;
    ASSERT_EQ(csv::parse_double(text, got), csv::NumStatus::ok) << text;
    ASSERT_TRUE(got.has_value()) << text;
    ASSERT_EQ(*got, want) << text;
  }
}
