// Arbitrary bytes must give a result or an Error, never a crash (run under ASan/UBSan in CI).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ingest/archive.hpp"
#include "ingest/artifact_path.hpp"
#include "ingest/benchmark_csv.hpp"
#include "ingest/reference_csv.hpp"
#include "tests/support/files.hpp"

namespace pi = perftriage::ingest;

namespace {

void feed(const std::string& bytes) {
  auto r = pi::parse_results_csv(bytes, "fuzz.csv");
  if (r.ok()) {
    for (const auto& row : r->rows) EXPECT_GE(row.line, 1);
  } else {
    EXPECT_FALSE(r.error().code.empty());
    EXPECT_EQ(r.error().file, "fuzz.csv");
  }
  (void)pi::sniff_csv(bytes);
  pi::Axes axes{"huggingface", "", "inference", "", "", ""};
  auto ref = pi::parse_reference_csv(bytes, "fuzz.csv", axes);
  if (!ref.ok()) {
    EXPECT_FALSE(ref.error().code.empty());
  }
  auto mp = pi::parse_multipart(bytes, "multipart/form-data; boundary=b");
  if (!mp.ok()) {
    EXPECT_EQ(mp.error().code, "bad_multipart");
  }
  (void)pi::axes_from_path(bytes);
  (void)pi::detect_archive(bytes);
}

}  // namespace

TEST(Robustness, RandomBytes) {
  std::mt19937 rng(12345);
  const std::string alphabet = "dev,name,speedup,accuracy,0123456789.\"\r\n#-_ abcxyz\t";
  for (int i = 0; i < 1500; ++i) {
    std::string s(rng() % 300, '\0');
    const bool raw = i % 2 == 0;
    for (char& c : s) c = raw ? static_cast<char>(rng() & 0xff) : alphabet[rng() % alphabet.size()];
    if (i % 3 == 0) s = "dev,name,batch_size,speedup,abs_latency\n" + s;
    if (i % 5 == 0) s = "--b\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\n" + s;
    feed(s);
  }
}

TEST(Robustness, TruncatedAndMutatedFixtures) {
  std::mt19937 rng(777);
  for (const auto& path : perftriage::testing::fixture_files("ingest")) {
    const std::string f = perftriage::testing::read_bytes(path);
    for (std::size_t cut = 0; cut <= f.size(); cut += 1 + f.size() / 60) feed(f.substr(0, cut));
    for (int i = 0; i < 40; ++i) {
      std::string m = f;
      if (m.empty()) break;
      for (int k = 0; k < 3; ++k) m[rng() % m.size()] = static_cast<char>(rng() & 0xff);
      feed(m);
    }
  }
}

TEST(Robustness, ArchiveGarbage) {
  std::mt19937 rng(99);
  const std::vector<std::string> heads = {std::string("PK\x03\x04", 4), std::string("\x1f\x8b\x08\x00", 4), ""};
  for (int i = 0; i < 300; ++i) {
    std::string s = heads[static_cast<std::size_t>(i) % heads.size()];
    const std::size_t n = rng() % 700;
    for (std::size_t k = 0; k < n; ++k) s.push_back(static_cast<char>(rng() & 0xff));
    if (i % 3 == 2 && s.size() > 262) s.replace(257, 5, "ustar");
    auto r = pi::unpack_archive(s, "fuzz.zip");
    if (!r.ok()) {
      EXPECT_FALSE(r.error().code.empty());
    }
  }
}
