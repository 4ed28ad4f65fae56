// Inputs that are not traces or logs are refused with a clear code, never crash, never a verdict.
#include <zlib.h>

#include <gtest/gtest.h>

#include <string>

#include "helpers.hpp"

using namespace trace_test;
using perftriage::ErrorKind;

struct Refusal {
  const char* file;
  const char* code;
};

class Refused : public ::testing::TestWithParam<Refusal> {};

TEST_P(Refused, WithCodeAndFile) {
  const Refusal p = GetParam();
  auto r = tr::classify_file(fixture(std::string("trace/") + p.file));
  ASSERT_FALSE(r) << p.file;
  EXPECT_EQ(r.error().code, p.code) << r.error().message;
  EXPECT_EQ(r.error().kind, ErrorKind::unprocessable);
  EXPECT_FALSE(r.error().message.empty());
  EXPECT_NE(r.error().file.find(p.file), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Refused,
                         ::testing::Values(Refusal{"execution_trace.json", "execution_trace"},
                                           Refusal{"memory_timeline.json", "not_trace_events"},
                                           Refusal{"truncated.json", "invalid_json"},
                                           Refusal{"truncated_tail.json", "invalid_json"},
                                           Refusal{"truncated.json.gz", "bad_gzip"}, Refusal{"empty.json", "empty"},
                                           Refusal{"no_trace_events.json", "no_trace_events"},
                                           Refusal{"plain_text.txt", "unrecognised_input"}));

TEST(Refused, MissingFileIsNotFound) {
  auto r = tr::classify_file(fixture("trace/does_not_exist.json"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::not_found);
}

namespace {

std::string gzip_bytes(const std::string& plain) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, plain.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  zs.avail_in = static_cast<uInt>(plain.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace

TEST(Refused, GzipBombByRatio) {
  // 64 MiB of spaces inside a valid JSON object compresses ~1000:1.
  std::string plain = "{\"traceEvents\": [], \"pad\": \"" + std::string(64 << 20, ' ') + "\"}";
  const std::string gz = gzip_bytes(plain);
  auto r = tr::classify_bytes(gz, "bomb.json.gz");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "gzip_bomb");
  EXPECT_EQ(r.error().kind, ErrorKind::too_large);
}

TEST(Refused, GzipOverTheSizeLimit) {
  std::string plain = "{\"traceEvents\": [], \"pad\": \"" + std::string(1 << 20, 'x') + "\"}";
  tr::ClassifyOptions o;
  o.max_decompressed_bytes = 512 << 10;
  auto r = tr::classify_bytes(gzip_bytes(plain), "big.json.gz", o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "gzip_bomb");
}

TEST(Refused, GzipOfTextLogIsRead) {
  const std::string log =
      "V0301 10:00:00.110000 1 x.py:1] [0/0] [__graph_breaks] Graph break in user code at /a.py:3\n";
  auto r = tr::classify_bytes(gzip_bytes(log), "log.gz");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(verdict(*r, "graph_breaks"), "yes");
}

TEST(Refused, GarbageNeverCrashes) {
  const char* inputs[] = {
      "{",
      "[",
      "[{",
      "{\"traceEvents\":",
      "{\"traceEvents\": [",
      "{\"traceEvents\": [{}",
      "{\"traceEvents\": [1, 2]}",
      "[{\"a\": 1}]",
      "[]",
      "{}",
      "\x1f\x8b",
      "null",
      "   ",
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": \"abc\"}]}",
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2}]} x"};
  for (const char* in : inputs) {
    auto r = tr::classify_bytes(in, "garbage.json");
    EXPECT_FALSE(r) << "accepted: " << in;
  }
}

TEST(Accepted, EmptyTraceEventsIsATraceWithoutKernels) {
  auto r = tr::classify_bytes("{\"schemaVersion\": 1, \"traceEvents\": []}", "e.json");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["census"]["device_kernels"], 0);
  EXPECT_EQ(verdict(*r, "host_bound"), "unknown");
  EXPECT_EQ(verdict(*r, "attention"), "none");
}
