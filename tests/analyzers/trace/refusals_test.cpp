// Inputs that are not traces or logs are refused with a clear code, never crash, never a verdict.
#include <zlib.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <regex>
#include <string>

#include <fmt/format.h>

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

namespace {

// `mib` MiB of zeros as one gzip stream, deflated a MiB at a time so the zeros are never all in memory.
std::string gzip_zeros(std::size_t mib) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  const std::string zeros(1 << 20, '\0');
  std::string out;
  std::string buf(1 << 16, '\0');
  for (std::size_t i = 0; i <= mib; ++i) {
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(zeros.data()));
    zs.avail_in = i < mib ? static_cast<uInt>(zeros.size()) : 0;
    const int flush = i < mib ? Z_NO_FLUSH : Z_FINISH;
    do {
      zs.next_out = reinterpret_cast<Bytef*>(buf.data());
      zs.avail_out = static_cast<uInt>(buf.size());
      deflate(&zs, flush);
      out.append(buf.data(), buf.size() - zs.avail_out);
    } while (zs.avail_out == 0);
  }
  deflateEnd(&zs);
  return out;
}

// {inflated, consumed, compressed} from a gzip_bomb message; zeros when it does not say.
std::array<std::uint64_t, 3> bomb_numbers(const std::string& message) {
  std::smatch m;
  static const std::regex re(R"((\d+) bytes inflated from the first (\d+) of (\d+) compressed bytes)");
  if (!std::regex_search(message, m, re)) return {0, 0, 0};
  return {std::stoull(m[1]), std::stoull(m[2]), std::stoull(m[3])};
}

// A Kineto-like trace of `kernels` launches as PyTorch writes it, one event per line: it gzips about as well as real
// ones (15-30x), the start of the file no better than the rest.
std::string kineto_like_trace(int kernels) {
  std::string t = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
  double ts = 1000.0;
  for (int i = 0; i < kernels; ++i) {
    const int corr = 100000 + i;
    const double dur = 3.0 + static_cast<double>((i * 7919) % 9973) / 97.0;
    t += fmt::format(
        "  {{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::{}\", \"pid\": 4242, \"tid\": 4242, \"ts\": {:.3f}, "
        "\"dur\": {:.3f}, \"args\": {{\"External id\": {}, \"Sequence number\": {}}}}},\n",
        i % 3 == 0 ? "linear" : (i % 3 == 1 ? "gelu" : "layer_norm"), ts, dur + 2.0, corr, i / 3);
    t += fmt::format(
        "  {{\"ph\": \"X\", \"cat\": \"xpu_runtime\", \"name\": \"urEnqueueKernelLaunchWithArgsExp\", \"pid\": 4242, "
        "\"tid\": 4242, \"ts\": {:.3f}, \"dur\": {:.3f}, \"args\": {{\"correlation\": {}, \"External id\": {}}}}},\n",
        ts + 0.5, 1.0 + static_cast<double>(i % 13) / 10.0, corr, corr);
    t += fmt::format(
        "  {{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel_{}x{}\", \"pid\": 0, \"tid\": 7, \"ts\": "
        "{:.3f}, "
        "\"dur\": {:.3f}, \"args\": {{\"correlation\": {}, \"External id\": {}, \"device\": 0}}}}{}\n",
        64 << (i % 4), 32 << (i % 5), ts + 3.0, dur, corr, corr, i + 1 < kernels ? "," : "");
    ts += dur + 4.0;
  }
  return t + "  ]\n}\n";
}

}  // namespace

// Judged against the compressed bytes read so far, a bomb is refused a few MiB in: against its whole size, this
// ~256 KB one would have inflated 64 MB first.
TEST(Refused, GzipBombStopsAFewMiBIn) {
  const std::string gz = gzip_zeros(256);
  auto r = tr::classify_bytes(gz, "bomb.json.gz");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, "gzip_bomb");
  const auto [inflated, consumed, compressed] = bomb_numbers(r.error().message);
  EXPECT_EQ(compressed, gz.size()) << r.error().message;
  EXPECT_GT(inflated, tr::ClassifyOptions{}.ratio_check_min_bytes) << r.error().message;
  EXPECT_LE(inflated, tr::ClassifyOptions{}.ratio_check_min_bytes + (2 << 20)) << r.error().message;
  EXPECT_LT(consumed, compressed / 10) << r.error().message;
}

// A trace that gzips as real ones do, several times the ratio floor, is read whole.
TEST(Accepted, RealisticGzippedTracePastTheRatioFloor) {
  const std::string plain = kineto_like_trace(60000);
  const std::string gz = gzip_bytes(plain);
  ASSERT_GT(plain.size(), 2 * tr::ClassifyOptions{}.ratio_check_min_bytes);
  const double ratio = static_cast<double>(plain.size()) / static_cast<double>(gz.size());
  EXPECT_GT(ratio, 10.0);
  auto r = tr::classify_bytes(gz, "big.json.gz");
  ASSERT_TRUE(r) << r.error().message << " (ratio " << ratio << ")";
  EXPECT_EQ((*r)["census"]["device_kernels"], 60000);
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
