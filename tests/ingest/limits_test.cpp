// Per-file bounds of the CSV parsers (CsvLimits), impossible values, the scan / re-read path used by
// ingest, and the multipart part limit.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "ingest/archive.hpp"
#include "ingest/benchmark_csv.hpp"
#include "ingest/csv_reader.hpp"
#include "ingest/reference_csv.hpp"
#include "tests/support/files.hpp"

namespace pi = perftriage::ingest;
namespace csv = perftriage::ingest::csv;

namespace {

constexpr const char* kH16 =
    "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
    "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
    "cudagraph_skips\n";
constexpr const char* kRow = "xpu,BertForMaskedLM,16,0.9,10.0,30.0,0,0,0,1,1,0,0,0,0,0";

pi::ParsedResults parse_ok(const std::string& bytes, const pi::CsvLimits& limits = {}) {
  auto r = pi::parse_results_csv(bytes, "f.csv", limits);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().code + ": " + r.error().message);
  if (!r.ok()) return {};
  return std::move(r).value();
}

std::string cells(std::size_t n, const std::string& value) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += "," + value;
  return out;
}

// Every field of a row, as text, for comparing the two ways of reading.
std::string dump(const pi::ResultRow& r) {
  std::ostringstream o;
  auto opt = [&](const auto& v) {
    if (v)
      o << *v;
    else
      o << "-";
    o << "|";
  };
  o << r.line << "|" << r.dev << "|" << r.model << "|" << r.batch_size << "|" << r.speedup_text << "|";
  opt(r.speedup);
  opt(r.abs_latency_ms);
  opt(r.compilation_latency_s);
  opt(r.compression_ratio);
  opt(r.eager_peak_mem_gb);
  opt(r.dynamo_peak_mem_gb);
  opt(r.calls_captured);
  opt(r.unique_graphs);
  opt(r.graph_breaks);
  opt(r.unique_graph_breaks);
  opt(r.autograd_captures);
  opt(r.autograd_compiles);
  opt(r.cudagraph_skips);
  opt(r.fallbacks_to_eager);
  o << r.accuracy << "|" << r.short_row << "|" << r.non_finite << "|";
  for (const auto& [k, v] : r.extra) o << k << "=" << v << ";";
  return o.str();
}

}  // namespace

TEST(CsvReaderLimits, CellsPastTheLimitAreCountedNotMaterialised) {
  const std::string line = "a,b,c" + std::string(1'000'000, ',') + "x,,y\n";
  csv::RecordReader r(line, csv::CellLimits{4, 16});
  csv::Record rec;
  std::vector<std::string_view> out;
  std::string scratch;
  ASSERT_TRUE(r.next_split(rec, out, scratch));
  EXPECT_EQ(out.size(), 4u);
  EXPECT_EQ(rec.cells_total, 1'000'005u);
  EXPECT_EQ(rec.overflow_nonempty, 2u);  // "x" and "y"
  EXPECT_EQ(rec.long_cell, csv::kNoCell);
  EXPECT_LE(out.capacity(), 64u);

  // the quoted (slow) path counts the same way, and reports a long cell by position
  const std::string quoted = "\"a\",b," + std::string(20, 'z') + ",\"q\"\"\"" + std::string(10, ',') + "w\n";
  csv::RecordReader q(quoted, csv::CellLimits{2, 16});
  ASSERT_TRUE(q.next_split(rec, out, scratch));
  EXPECT_EQ(out.size(), 2u);
  EXPECT_EQ(rec.cells_total, 14u);
  EXPECT_EQ(rec.overflow_nonempty, 3u);  // zzz..., q", w
  EXPECT_EQ(rec.long_cell, 2u);
  EXPECT_EQ(rec.long_cell_bytes, 20u);
}

TEST(CsvLimits, TrailingEmptyCellsCostNothingAndWarnNothing) {
  // 10 MB of commas after a valid row (unbounded: 2.7 GB and a 79 MB row of JSON)
  const std::string bytes = std::string(kH16) + kRow + std::string(10u << 20, ',') + "\n" + kRow + ",,,\n";
  auto p = parse_ok(bytes);
  ASSERT_EQ(p.rows.size(), 1u);  // the second row is a duplicate of the first
  EXPECT_TRUE(p.rows[0].extra.empty());
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_DOUBLE_EQ(*p.rows[0].speedup, 0.9);
}

TEST(CsvLimits, ExtraCellsAreKeptUpToTheBoundsTheRestCountedInAWarning) {
  const std::string bytes = std::string(kH16) + "xpu,A," + "16,0.9,10.0,30.0,0,0,0,1,1,0,0,0,0,0" + cells(40, "e") +
                            "\n" +  // 24 dropped
                            "xpu,B,16,0.9,10.0,30.0,0,0,0,1,1,0,0,0,0,0," + std::string(600, 'p') + "," +
                            std::string(600, 'q') + ",r\n" +                                         // 2 dropped
                            "xpu,C,16,0.9,10.0,30.0,0,0,0,1,1,0,0,0,0,0,,,c1,,c2\n" +                // none
                            "xpu,D,16,0.9,10.0,30.0,0,0,0,1,1,0,0,0,0,0" + cells(3000, "d") + "\n";  // 2984
  auto p = parse_ok(bytes);
  ASSERT_EQ(p.rows.size(), 4u);
  ASSERT_EQ(p.rows[0].extra.size(), 16u);
  EXPECT_EQ(p.rows[0].extra[0].first, "col17");
  EXPECT_EQ(p.rows[0].extra[15].first, "col32");
  ASSERT_EQ(p.rows[1].extra.size(), 1u);  // the second 600-byte cell would pass 1024 bytes: it and "r" dropped
  EXPECT_EQ(p.rows[1].extra[0].second, std::string(600, 'p'));
  ASSERT_EQ(p.rows[2].extra.size(), 2u);  // empty cells are skipped, positions kept
  EXPECT_EQ(p.rows[2].extra[0].first, "col19");
  EXPECT_EQ(p.rows[2].extra[1].first, "col21");
  EXPECT_EQ(p.rows[3].extra.size(), 16u);
  ASSERT_EQ(p.warnings.size(), 1u);
  const auto& w = p.warnings[0];
  EXPECT_EQ(w.code, "extra_cells_dropped");
  EXPECT_EQ(w.rows, 3);
  EXPECT_EQ(w.cells, 24 + 2 + 2984);
  EXPECT_EQ(w.first_line, 2);
  EXPECT_NE(w.message.find("f.csv"), std::string::npos);

  pi::CsvLimits tight;
  tight.max_extra_cells = 1;
  auto t = parse_ok(bytes, tight);
  EXPECT_EQ(t.rows[2].extra.size(), 1u);
  EXPECT_EQ(t.warnings[0].rows, 4);
}

TEST(CsvLimits, HeaderWithTooManyColumnsIsRefused) {
  const std::string header = "dev,name,batch_size,speedup" + cells(600, "x");
  auto r = pi::parse_results_csv(header + "\n" + kRow + "\n", "wide.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "too_many_columns");
  EXPECT_EQ(r.error().file, "wide.csv");
  EXPECT_EQ(r.error().line, 1);
  EXPECT_NE(r.error().message.find("604"), std::string::npos) << r.error().message;

  // exactly at the limit is fine; a later header over it is refused too
  auto ok = pi::parse_results_csv("dev,name,batch_size,speedup" + cells(508, "x") + "\nxpu,m,1,1.1\n", "f.csv");
  EXPECT_TRUE(ok.ok());
  auto later = pi::parse_results_csv(std::string(kH16) + kRow + "\n" + header + "\n", "f.csv");
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().code, "too_many_columns");
  EXPECT_EQ(later.error().line, 3);
}

TEST(CsvLimits, LongCellIsRefusedNamingFileLineAndColumn) {
  const std::string big(5000, '7');
  auto r = pi::parse_results_csv(std::string(kH16) + kRow + "\nxpu,m,16," + big + ",1\n", "long.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "cell_too_long");
  EXPECT_EQ(r.error().file, "long.csv");
  EXPECT_EQ(r.error().line, 3);
  EXPECT_EQ(r.error().column, "speedup");
  EXPECT_NE(r.error().message.find("5000"), std::string::npos);

  auto extra = pi::parse_results_csv(std::string(kH16) + kRow + ",ok,\"" + big + "\"\n", "long.csv");
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.error().column, "col18");

  auto header = pi::parse_results_csv("dev,name,speedup," + big + "\nxpu,m,1\n", "long.csv");
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().code, "cell_too_long");
  EXPECT_EQ(header.error().column, "col4");

  // comments are not cells
  EXPECT_TRUE(pi::parse_results_csv("# " + big + "\n" + kH16 + kRow + "\n", "f.csv").ok());
}

TEST(CsvLimits, ReferenceFilesShareTheBounds) {
  const pi::Axes axes{"huggingface", "", "inference", "", "", ""};
  auto wide = pi::parse_reference_csv("name,accuracy" + cells(600, "x") + "\nm,pass\n", "ref.csv", axes);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().code, "too_many_columns");
  auto longer =
      pi::parse_reference_csv("name,accuracy,graph_breaks\nm," + std::string(5000, 'p') + ",0\n", "ref.csv", axes);
  ASSERT_FALSE(longer.ok());
  EXPECT_EQ(longer.error().code, "cell_too_long");
  EXPECT_EQ(longer.error().column, "accuracy");
  EXPECT_EQ(longer.error().line, 2);
  auto commas = pi::parse_reference_csv("name,accuracy,graph_breaks\nm,pass,0" + std::string(1u << 20, ',') + "\n",
                                        "ref.csv", axes);
  ASSERT_TRUE(commas.ok()) << commas.error().message;
  EXPECT_EQ(commas->rows.size(), 1u);
  EXPECT_EQ(pi::sniff_csv(std::string(1u << 20, ',') + "\n"), pi::CsvFlavor::unknown);
}

TEST(ImpossibleValues, NegativeAndNonFiniteMeasurementsAreMarked) {
  const std::string bytes = std::string(kH16) +
                            "xpu,neg_speedup,16,-1.5,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
                            "xpu,nan_speedup,16,nan,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
                            "xpu,inf_latency,16,0.5,inf,30.0,0,0,0,1,1,0,0,0,0,0\n"
                            "xpu,neg_batch,-8,0.5,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n"
                            "xpu,neg_compile,8,0.5,10.0,-3,0,0,0,1,1,0,0,0,0,0\n"
                            "xpu,nan_ratio,8,0.5,10.0,3,nan,0,0,1,1,0,0,0,0,0\n"
                            "xpu,fine,8,0.5,10.0,3,0,0,0,1,1,0,0,0,0,0\n";
  auto p = parse_ok(bytes);
  ASSERT_EQ(p.rows.size(), 7u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_TRUE(pi::holds_impossible_value(p.rows[i])) << p.rows[i].model;
  EXPECT_FALSE(pi::holds_impossible_value(p.rows[5]));  // compression_ratio nan: "no value", as before
  EXPECT_FALSE(pi::holds_impossible_value(p.rows[6]));
  EXPECT_DOUBLE_EQ(*p.rows[0].speedup, -1.5);  // stored as written
  EXPECT_EQ(p.rows[1].speedup_text, "nan");
  EXPECT_TRUE(p.rows[1].non_finite);
  EXPECT_EQ(p.rows[3].batch_size, -8);
}

TEST(ImpossibleValues, AnInvalidRowNeverWinsADuplicateGroup) {
  const std::string bytes = std::string(kH16) +
                            "xpu,m,16,-2.0,1.0,30.0,0,0,0,1,1,0,0,0,0,0\n"   // "faster" latency, but negative speedup
                            "xpu,m,16,1.2,10.0,30.0,0,0,0,1,1,0,0,0,0,0\n";  // the valid one wins
  auto p = parse_ok(bytes);
  ASSERT_EQ(p.rows.size(), 1u);
  EXPECT_EQ(p.rows[0].line, 3);
  EXPECT_EQ(p.duplicates_dropped, 1);
}

TEST(ScanAndReread, GivesTheRowsParseGivesForEveryFixture) {
  for (const auto& file : perftriage::testing::fixture_files("ingest")) {
    const std::string path = file.string();
    const std::string bytes = perftriage::testing::read_bytes(file);
    if (pi::sniff_csv(bytes) != pi::CsvFlavor::results) continue;
    auto parsed = pi::parse_results_csv(bytes, path);
    auto scanned = pi::scan_results_csv(bytes, path);
    ASSERT_EQ(parsed.ok(), scanned.ok()) << path;
    if (!parsed.ok()) continue;
    EXPECT_EQ(scanned->summary.kind, parsed->kind) << path;
    EXPECT_EQ(scanned->summary.header, parsed->header) << path;
    EXPECT_EQ(scanned->summary.duplicates_dropped, parsed->duplicates_dropped) << path;
    EXPECT_EQ(scanned->summary.content_axes.device, parsed->content_axes.device) << path;
    EXPECT_EQ(scanned->summary.content_axes.suite, parsed->content_axes.suite) << path;
    EXPECT_TRUE(scanned->summary.rows.empty());
    ASSERT_EQ(scanned->rows.size(), parsed->rows.size()) << path;
    std::vector<std::string> reread;
    auto r = pi::for_each_result_row(*scanned, bytes, path, [&](const pi::ResultRow& row) {
      reread.push_back(dump(row));
      return true;
    });
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(reread.size(), parsed->rows.size()) << path;
    for (std::size_t i = 0; i < reread.size(); ++i) EXPECT_EQ(reread[i], dump(parsed->rows[i])) << path << " #" << i;
  }
}

TEST(ScanAndReread, HeaderSwitchesDuplicatesBomAndWarnings) {
  const std::string bytes = "\xEF\xBB\xBF# comment\n" + std::string(kH16) +
                            "xpu,a,16,0.9,10.0,30.0,0,0,0,1,1,0,0,0,0,0,x,y\n"
                            "dev,name,batch_size,speedup,abs_latency\n"
                            "dev,name,speedup,batch_size,abs_latency\n"  // replaces the previous, row-less header
                            "xpu,\"b,\"\"q\"\"\",0.5,8,9.0\n"
                            "xpu,a,1.1,16,5.0" +
                            cells(20, "e") + "\n";
  auto parsed = parse_ok(bytes);
  auto scanned = pi::scan_results_csv(bytes, "f.csv");
  ASSERT_TRUE(scanned.ok());
  EXPECT_EQ(scanned->headers.size(), 2u);
  ASSERT_EQ(parsed.rows.size(), 2u);  // the second "a" (passing, lower latency) replaces the first
  EXPECT_EQ(parsed.rows[0].model, "b,\"q\"");
  EXPECT_EQ(parsed.rows[1].line, 7);
  EXPECT_EQ(parsed.warnings.size(), 1u);
  ASSERT_EQ(scanned->summary.warnings.size(), 1u);
  EXPECT_EQ(scanned->summary.warnings[0].cells, 4);
  std::vector<std::string> reread;
  ASSERT_TRUE(pi::for_each_result_row(*scanned, bytes, "f.csv", [&](const pi::ResultRow& row) {
                reread.push_back(dump(row));
                return true;
              }).ok());
  ASSERT_EQ(reread.size(), 2u);
  EXPECT_EQ(reread[0], dump(parsed.rows[0]));
  EXPECT_EQ(reread[1], dump(parsed.rows[1]));
}

TEST(Multipart, MorePartsThanTheLimitAreRefusedBeforeTheyAreRead) {
  auto body = [](int parts) {
    std::string b;
    for (int i = 0; i < parts; ++i)
      b += "--B\r\nContent-Disposition: form-data; name=\"f" + std::to_string(i) + "\"; filename=\"f" +
           std::to_string(i) + ".csv\"\r\n\r\nx\r\n";
    return b + "--B--\r\n";
  };
  auto ok = pi::parse_multipart(body(3), "multipart/form-data; boundary=B", 3);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->size(), 3u);
  auto refused = pi::parse_multipart(body(4), "multipart/form-data; boundary=B", 3);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, perftriage::ErrorKind::too_large);
  EXPECT_EQ(refused.error().code, "too_many_parts");
  EXPECT_NE(refused.error().message.find("3 parts"), std::string::npos) << refused.error().message;
  // the default limit; the last part (a truncated one) is never looked at
  auto many = pi::parse_multipart_views(body(pi::UnpackLimits{}.max_parts + 1) + "--B\r\ntruncated",
                                        "multipart/form-data; boundary=B");
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error().code, "too_many_parts");
  // views and copies agree
  const std::string two = body(2);  // views point into it
  auto views = pi::parse_multipart_views(two, "multipart/form-data; boundary=B");
  ASSERT_TRUE(views.ok());
  ASSERT_EQ(views->size(), 2u);
  EXPECT_EQ((*views)[1].filename, "f1.csv");
  EXPECT_EQ((*views)[1].body, "x");
}
