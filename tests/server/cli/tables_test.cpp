// The format dispatch and the runs table the CLI and the routes share (server/app/tables.hpp).
#include <gtest/gtest.h>

#include <sstream>

#include "server/app/tables.hpp"
#include "server/cli/cli.hpp"

namespace perftriage::server {
namespace {

TEST(Tables, ParseFormatNamesTheParameter) {
  EXPECT_EQ(*parse_format("", Format::json), Format::json);
  EXPECT_EQ(*parse_format("csv", Format::json), Format::csv);
  auto bad = parse_format("yaml", Format::json);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, "bad_format");
  EXPECT_EQ(bad.error().column, "format");
  EXPECT_FALSE(parse_format("csv", Format::md, {Format::md}));  // a report is markdown only
  EXPECT_EQ(rendered_text(Format::csv, "").content_type, "text/csv; charset=utf-8");
  EXPECT_EQ(rendered_json({{"a", 1}}).body, "{\"a\":1}\n");
}

TEST(Tables, RunsTextAlignsEveryColumnToItsLongestCell) {
  RunRow a;
  a.run.meta.key = "k";
  a.run.meta.platform = "BMG";
  a.run.meta.torch_version = "2.12.0.dev20260101+git0123456789abcdef-xpu";
  a.run.meta.created_at = "2026-01-01T00:00:00Z";
  a.counts.files = 5;
  a.counts.rows = 1234;
  RunRow b = a;
  b.run.meta.key = "a-much-longer-run-key-than-the-header";
  b.run.meta.torch_version = "2.12";
  const std::string text = render_runs({a, b}, Format::text).body;
  std::istringstream lines(text);
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  const auto created = header.find("created");
  ASSERT_NE(created, std::string::npos) << text;
  EXPECT_EQ(first.substr(created, 20), "2026-01-01T00:00:00Z") << text;
  EXPECT_EQ(second.substr(created, 20), "2026-01-01T00:00:00Z") << text;
  EXPECT_EQ(first.find("2.12.0.dev20260101+git0123456789abcdef-xpu  "), header.find("torch")) << text;
  EXPECT_EQ(first.size(), header.size()) << text;  // numbers right-aligned under their header
  EXPECT_EQ(render_runs({a}, Format::json, true).body.rfind("{\"runs\":[", 0), 0u);
  EXPECT_EQ(render_runs({a}, Format::json).body.rfind("[{", 0), 0u);
}

}  // namespace
}  // namespace perftriage::server

namespace perftriage::cli {
namespace {

int run(const Args& args, std::string* out_text = nullptr, std::string* err_text = nullptr) {
  std::ostringstream out, err;
  const int rc = run_cli(args, out, err);
  if (out_text) *out_text = out.str();
  if (err_text) *err_text = err.str();
  return rc;
}

TEST(Cli, ExitCodes) {
  std::string out, err;
  EXPECT_EQ(run({}, nullptr, &err), 2);
  EXPECT_NE(err.find("Usage: perftriage"), std::string::npos) << err;
  EXPECT_EQ(run({"--version"}, &out), 0);
  EXPECT_FALSE(out.empty());
  EXPECT_EQ(run({"no-such-command"}), 2);
  EXPECT_EQ(run({"slow", "--no-such-option"}), 2);
  EXPECT_EQ(run({"report", "--run", "k", "--kind", "sideways"}), 2);
  EXPECT_EQ(run({"report"}, nullptr, &err), 2);  // neither --run nor --target
  EXPECT_EQ(run({"ingest", "--platform", "--run", "x", "a.csv"}, nullptr, &err), 2);
  EXPECT_NE(err.find("--platform"), std::string::npos) << err;
  EXPECT_EQ(run({"slow", "--db", "/nonexistent/dir/db.sqlite"}, nullptr, &err), 1);
  EXPECT_NE(err.find("/nonexistent/dir/db.sqlite"), std::string::npos) << err;
  EXPECT_EQ(run({"help", "no-such-command"}), 1);
}

}  // namespace
}  // namespace perftriage::cli
