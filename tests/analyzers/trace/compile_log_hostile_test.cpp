// Compile-log parsing of a 1 MB single line. normalise_reason used std::regex (recursive backtracking):
// a long reason could overflow the stack. With RE2 it is linear; the dev preset's ASan would show an overflow.
#include <chrono>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "analyzers/trace/compile_log.hpp"

namespace tr = perftriage::analyzers::trace;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(CompileLogHostile, NormaliseReasonOfAMegabyteLine) {
  const std::string body(1 << 20, 'x');
  auto r = tr::normalise_reason("- 0/1: " + body + " expected 3, actual 4 at 0xdeadbeef");
  EXPECT_EQ(r, std::string(300, 'x') + "...");
  // Every alphabet the patterns repeat: spaces, digits, hex, "expected N" runs.
  std::string nums;
  while (nums.size() < (1u << 20)) nums += "expected 123 actual -4 0xAbC ";
  r = tr::normalise_reason(nums);
  EXPECT_EQ(r.substr(0, 35), "expected N actual N 0x? expected N ");
  EXPECT_EQ(tr::normalise_reason("-" + std::string(1 << 20, ' ') + "1/2:" + std::string(1 << 20, ' ') + "tail"),
            "tail");
  EXPECT_EQ(tr::normalise_reason("0x" + std::string(1 << 20, 'f')), "0x?");
  EXPECT_EQ(tr::normalise_reason("expected" + std::string(1 << 20, ' ') + "7"), "expected N");
}

TEST(CompileLogHostile, MegabyteSingleLineLogs) {
  const std::string big(1 << 20, 'a');
  const auto t0 = std::chrono::steady_clock::now();
  // A guard failure of 1 MB under a recompile.
  {
    tr::CompileLog log;
    tr::parse_torch_logs(
        "Recompiling function forward in /x.py:1\n    triggered by the following guard failure(s):\n"
        "    - 0/0: tensor 'x' size mismatch at index 0. expected 3, actual " +
            big + "\n",
        log);
    EXPECT_EQ(log.recompiles, 1);
    ASSERT_EQ(log.recompile_reasons.size(), 1u);
  }
  // A graph-break reason of 1 MB.
  {
    tr::CompileLog log;
    tr::parse_torch_logs("Graph break in user code at /x.py:3\nGraph Break Reason: " + big + " expected 1\n", log);
    EXPECT_GE(log.graph_breaks, 1);
  }
  // One 1 MB line with no newline at all, through every parser and the sniffer.
  {
    tr::CompileLog log;
    const std::string line = "Graph break: " + big + " from user code at:";
    tr::parse_torch_logs(line, log);
    tr::parse_explain(line, log);
    tr::parse_tlparse(line, log);
    (void)tr::sniff_log(line);
    (void)tr::sniff_log(big);
  }
  std::printf("[ timing   ] 1 MB single-line compile logs parsed in %.1f ms\n", ms_since(t0));
}
