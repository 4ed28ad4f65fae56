#include "ingest/archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace pi = perftriage::ingest;

namespace {

struct Member {
  std::string path;
  std::string bytes;
  int type = AE_IFREG;
};
constexpr int kHardlink = -1;  // a regular entry that is a hardlink to "target.csv"

enum class Fmt { zip, tar, tar_gz, gz };

// Builds an archive in memory with libarchive's write API.
std::string build(Fmt fmt, const std::vector<Member>& members) {
  std::vector<char> buf(16u << 20);
  std::size_t used = 0;
  archive* a = archive_write_new();
  switch (fmt) {
    case Fmt::zip: archive_write_set_format_zip(a); break;
    case Fmt::tar: archive_write_set_format_pax_restricted(a); break;
    case Fmt::tar_gz:
      archive_write_set_format_pax_restricted(a);
      archive_write_add_filter_gzip(a);
      break;
    case Fmt::gz:
      archive_write_set_format_raw(a);
      archive_write_add_filter_gzip(a);
      break;
  }
  EXPECT_EQ(archive_write_open_memory(a, buf.data(), buf.size(), &used), ARCHIVE_OK) << archive_error_string(a);
  for (const auto& m : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.path.c_str());
    archive_entry_set_filetype(e, static_cast<unsigned>(m.type == kHardlink ? AE_IFREG : m.type));
    archive_entry_set_perm(e, 0644);
    if (m.type == AE_IFLNK) archive_entry_set_symlink(e, "target.csv");
    if (m.type == kHardlink) archive_entry_set_hardlink(e, "target.csv");
    archive_entry_set_size(e, m.type == AE_IFREG ? static_cast<la_int64_t>(m.bytes.size()) : 0);
    EXPECT_EQ(archive_write_header(a, e), ARCHIVE_OK) << archive_error_string(a);
    if (m.type == AE_IFREG && !m.bytes.empty()) {
      EXPECT_EQ(archive_write_data(a, m.bytes.data(), m.bytes.size()), static_cast<la_ssize_t>(m.bytes.size()));
    }
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return std::string(buf.data(), used);
}

const std::string kCsv = "dev,name,batch_size,speedup\nxpu,m,1,1.5\n";

// Like build(), each member `mib` MiB of zeros written a MiB at a time (the zeros never all in memory), then, with
// `pad` > 0, a member "pad.bin" of `pad` bytes that do not compress.
std::string build_zeros(Fmt fmt, const std::vector<std::string>& paths, std::size_t mib, std::size_t pad = 0) {
  std::vector<char> buf(16u << 20);
  std::size_t used = 0;
  archive* a = archive_write_new();
  if (fmt == Fmt::zip) {
    archive_write_set_format_zip(a);
  } else {
    fmt == Fmt::gz ? archive_write_set_format_raw(a) : archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  }
  EXPECT_EQ(archive_write_open_memory(a, buf.data(), buf.size(), &used), ARCHIVE_OK) << archive_error_string(a);
  const std::string zeros(1u << 20, '\0');
  for (const auto& path : paths) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, path.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(mib << 20));
    EXPECT_EQ(archive_write_header(a, e), ARCHIVE_OK) << archive_error_string(a);
    for (std::size_t i = 0; i < mib; ++i) archive_write_data(a, zeros.data(), zeros.size());
    archive_entry_free(e);
  }
  if (pad > 0) {
    std::string noise(pad, '\0');
    std::uint32_t x = 2463534242u;
    for (char& c : noise) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;  // xorshift: bytes deflate cannot shrink
      c = static_cast<char>(x);
    }
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, "pad.bin");
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(pad));
    EXPECT_EQ(archive_write_header(a, e), ARCHIVE_OK) << archive_error_string(a);
    archive_write_data(a, noise.data(), noise.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return std::string(buf.data(), used);
}

// {unpacked, read, whole} from a compression-bomb message; zeros when it does not say.
std::array<std::size_t, 3> bomb_numbers(const std::string& message) {
  std::smatch m;
  static const std::regex re(R"((\d+) bytes unpacked from the first (\d+) of (\d+) bytes)");
  if (!std::regex_search(message, m, re)) return {0, 0, 0};
  return {std::stoull(m[1]), std::stoull(m[2]), std::stoull(m[3])};
}

// A benchmark CSV as the nightly writes it: a few hundred models, a handful of batch sizes, numbers with few
// digits, most columns constant. It compresses ~15x, at the high end of real ones (5-20x).
std::string benchmark_csv(std::size_t rows) {
  static const char* const kSpeedup[] = {"0.90", "1.00", "1.10", "1.20", "1.30", "1.40", "1.50", "1.60"};
  std::string csv =
      "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
      "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
      "cudagraph_skips\n";
  for (std::size_t i = 0; i < rows; ++i) {
    const std::size_t h = (i * 2654435761u) % 1000003;
    csv += "xpu,Model" + std::to_string(i % 500) + "ForCausalLM," + std::to_string(1u << (i % 6)) + "," +
           kSpeedup[h % 8] + "," + std::to_string(10 + h % 16) + ".000," + std::to_string(20 + h % 4) +
           ",0.95,0,0,1,1,0,0,0,0,0\n";
  }
  return csv;
}

}  // namespace

TEST(Archive, DetectByMagic) {
  EXPECT_EQ(pi::detect_archive(build(Fmt::zip, {{"a.csv", kCsv}})), pi::ArchiveType::zip);
  EXPECT_EQ(pi::detect_archive(build(Fmt::tar, {{"a.csv", kCsv}})), pi::ArchiveType::tar);
  EXPECT_EQ(pi::detect_archive(build(Fmt::tar_gz, {{"a.csv", kCsv}})), pi::ArchiveType::tar_gz);
  EXPECT_EQ(pi::detect_archive(build(Fmt::gz, {{"a.csv", kCsv}})), pi::ArchiveType::gzip);
  EXPECT_EQ(pi::detect_archive(kCsv), pi::ArchiveType::none);
  EXPECT_EQ(pi::detect_archive(""), pi::ArchiveType::none);
  EXPECT_EQ(pi::detect_archive("\x1f"), pi::ArchiveType::none);
}

TEST(Archive, ZipTreeKeepsOnlyCsvMembersWithNormalisedPaths) {
  const std::string zip = build(Fmt::zip, {{"./huggingface/", "", AE_IFDIR},
                                           {"./huggingface/bfloat16/inference/performance/"
                                            "inductor-results-huggingface-bfloat16-inference-xpu-performance.csv",
                                            kCsv},
                                           {"sub//B.CSV", "x"},
                                           {"notes.txt", "not a csv"}});
  auto r = pi::unpack_archive(zip, "upload.zip");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ(
      (*r)[0].path,
      "huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv");
  EXPECT_EQ((*r)[0].bytes, kCsv);
  EXPECT_EQ((*r)[1].path, "sub/B.CSV");
  EXPECT_EQ((*r)[1].bytes, "x");
}

TEST(Archive, TarGzAndTar) {
  for (Fmt f : {Fmt::tar, Fmt::tar_gz}) {
    auto r = pi::unpack_archive(build(f, {{"inductor_log/timm_models/float32/a.csv", kCsv}, {"b.csv", ""}}), "t.tgz");
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_EQ(r->size(), 2u);
    EXPECT_EQ((*r)[0].path, "inductor_log/timm_models/float32/a.csv");
    EXPECT_EQ((*r)[0].bytes, kCsv);
    EXPECT_EQ((*r)[1].bytes, "");
  }
}

TEST(Archive, SingleGzipNamedAfterArchive) {
  auto r = pi::unpack_archive(build(Fmt::gz, {{"data", kCsv}}), "runs/inductor_huggingface_x.csv.gz");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].path, "runs/inductor_huggingface_x.csv");
  EXPECT_EQ((*r)[0].bytes, kCsv);

  auto n = pi::unpack_archive(build(Fmt::gz, {{"data", kCsv}}), "trace.json.gz");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code, "no_csv_in_archive");
}

TEST(ArchiveErrors, DotDotMemberRefused) {
  auto r = pi::unpack_archive(build(Fmt::tar_gz, {{"ok.csv", kCsv}, {"a/../../evil.csv", kCsv}}), "up.tar.gz");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "bad_archive_path");
  EXPECT_EQ(r.error().kind, perftriage::ErrorKind::invalid_input);
  EXPECT_EQ(r.error().file, "up.tar.gz");
  EXPECT_NE(r.error().message.find("evil.csv"), std::string::npos);
}

// Zip-slip: every way out of the archive's tree is refused with 400 naming the member, in every format.
TEST(ArchiveErrors, ZipSlipRefusedNamingTheMember) {
  const std::vector<std::pair<Member, std::string>> cases = {
      {{"../evil.csv", kCsv}, "climbs out"},     {{"a/b/../../../evil.csv", kCsv}, "climbs out"},
      {{"..\\evil.csv", kCsv}, "climbs out"},    {{"/etc/evil.csv", kCsv}, "absolute path"},
      {{"C:/evil.csv", kCsv}, "absolute path"},  {{"evil.csv", "", AE_IFLNK}, "is a link"},
      {{"evil.txt", "", AE_IFLNK}, "is a link"},
  };
  for (Fmt f : {Fmt::zip, Fmt::tar, Fmt::tar_gz}) {
    for (const auto& [member, why] : cases) {
      auto r = pi::unpack_archive(build(f, {{"ok.csv", kCsv}, member}), "up.archive");
      ASSERT_FALSE(r.ok()) << member.path;
      EXPECT_EQ(r.error().code, "bad_archive_path") << member.path;
      EXPECT_EQ(r.error().kind, perftriage::ErrorKind::invalid_input);
      EXPECT_EQ(r.error().file, "up.archive");
      // (the zip reader turns a backslash into a slash: the name is checked from its last separator on)
      const std::string base = member.path.substr(member.path.find_last_of("/\\") + 1);
      EXPECT_NE(r.error().message.find(base + "'"), std::string::npos) << r.error().message;
      EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    }
  }
  for (Fmt f : {Fmt::tar, Fmt::tar_gz}) {  // zip has no hardlinks; tar has
    auto r = pi::unpack_archive(build(f, {{"target.csv", kCsv}, {"copy.csv", "", kHardlink}}), "up.tar");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "bad_archive_path");
    EXPECT_NE(r.error().message.find("'copy.csv' is a link"), std::string::npos) << r.error().message;
  }
}

// A bomb under the absolute limits is still refused by its expansion ratio, in every compressed format.
TEST(ArchiveErrors, CompressionRatioBomb) {
  pi::UnpackLimits lim;
  lim.max_ratio = 50;
  lim.ratio_floor_bytes = 64 << 10;
  const std::string zeros(1u << 20, '0');  // deflates ~1000x
  for (Fmt f : {Fmt::zip, Fmt::tar_gz, Fmt::gz}) {
    auto r = pi::unpack_archive(build(f, {{"bomb.csv", zeros}}), "bomb.csv.gz", lim);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "archive_too_large");
    EXPECT_EQ(r.error().kind, perftriage::ErrorKind::too_large);
    EXPECT_NE(r.error().message.find("compression bomb"), std::string::npos) << r.error().message;
  }
  // Ordinary CSV compression (well under the ratio) and anything below the floor pass.
  lim.ratio_floor_bytes = 2u << 20;
  EXPECT_TRUE(pi::unpack_archive(build(Fmt::zip, {{"bomb.csv", zeros}}), "ok.zip", lim).ok());
  lim.max_ratio = 0;
  lim.ratio_floor_bytes = 0;
  EXPECT_TRUE(pi::unpack_archive(build(Fmt::tar_gz, {{"bomb.csv", zeros}}), "ok.tgz", lim).ok());
}

// Judged against the archive bytes read so far, a bomb is refused a few MiB in, whatever its format. The zip and
// tar.gz state sizes the ratio allows for their whole size (1.5 MB of noise follows the bomb), so only the bytes read
// so far give them away; judged against the whole size, each of these would have unpacked 64 MiB or more first.
TEST(ArchiveErrors, BombStopsAFewMiBIn) {
  const pi::UnpackLimits lim;
  for (Fmt f : {Fmt::zip, Fmt::tar_gz, Fmt::gz}) {
    const std::string bomb = f == Fmt::gz ? build_zeros(f, {"bomb.csv"}, 200) : build_zeros(f, {"a.csv"}, 100, 1500000);
    auto r = pi::unpack_archive(bomb, "bomb.csv.gz", lim);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "archive_too_large");
    const auto [unpacked, read, whole] = bomb_numbers(r.error().message);
    EXPECT_EQ(whole, bomb.size()) << r.error().message;
    EXPECT_GT(unpacked, lim.ratio_floor_bytes) << r.error().message;
    EXPECT_LE(unpacked, lim.ratio_floor_bytes + (1u << 20)) << r.error().message;
    // libarchive reports what it has read as it goes (read in blocks, not the whole archive at once)
    EXPECT_LT(read, whole / 10) << r.error().message;
  }
}

// A member whose header states more than the ratio allows for the whole archive is refused before any of it is
// unpacked.
TEST(ArchiveErrors, BombStatingItsSizeRefusedUpFront) {
  const pi::UnpackLimits lim;
  for (Fmt f : {Fmt::zip, Fmt::tar_gz}) {
    const std::string bomb = build_zeros(f, {"a.csv", "b.csv"}, 100);
    auto r = pi::unpack_archive(bomb, "bomb.zip", lim);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "archive_too_large");
    EXPECT_NE(r.error().message.find("member 'a.csv' states 104857600 bytes uncompressed, more than 100x"),
              std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("compression bomb"), std::string::npos) << r.error().message;
  }
}

// A CSV compressed as real ones are, several times the ratio floor, unpacks whole in every format.
TEST(Archive, RealisticCsvPastTheRatioFloor) {
  const pi::UnpackLimits lim;
  const std::string csv = benchmark_csv(300000);
  ASSERT_GT(csv.size(), 2 * lim.ratio_floor_bytes);
  for (Fmt f : {Fmt::zip, Fmt::tar_gz, Fmt::gz}) {
    const std::string packed = build(f, {{"big.csv", csv}});
    auto r = pi::unpack_archive(packed, "big.csv.gz", lim);
    EXPECT_GT(csv.size() / packed.size(), 10u);
    ASSERT_TRUE(r.ok()) << r.error().message << " (ratio " << csv.size() / packed.size() << ")";
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ((*r)[0].bytes, csv);
  }
}

TEST(ArchiveErrors, NoCsv) {
  auto r = pi::unpack_archive(build(Fmt::zip, {{"readme.md", "hi"}}), "up.zip");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "no_csv_in_archive");
  EXPECT_EQ(r.error().file, "up.zip");
}

TEST(ArchiveErrors, TooManyEntries) {
  pi::UnpackLimits lim;
  lim.max_entries = 2;
  auto r = pi::unpack_archive(build(Fmt::zip, {{"a.csv", "1"}, {"b.csv", "2"}, {"c.csv", "3"}}), "up.zip", lim);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "archive_too_large");
  EXPECT_EQ(r.error().kind, perftriage::ErrorKind::too_large);
  EXPECT_NE(r.error().message.find("'c.csv'"), std::string::npos) << r.error().message;
}

TEST(ArchiveErrors, MemberTooLarge) {
  pi::UnpackLimits lim;
  lim.max_entry_bytes = 1000;
  const std::string big(5000, 'a');  // compresses well: a small bomb
  for (Fmt f : {Fmt::zip, Fmt::tar_gz, Fmt::gz}) {
    auto r = pi::unpack_archive(build(f, {{"big.csv", big}}), "up.csv.gz", lim);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, "archive_too_large");
    EXPECT_EQ(r.error().kind, perftriage::ErrorKind::too_large);
  }
}

TEST(ArchiveErrors, TotalTooLarge) {
  pi::UnpackLimits lim;
  lim.max_total_bytes = 1500;
  const std::string part(1000, 'b');
  auto r = pi::unpack_archive(build(Fmt::tar_gz, {{"a.csv", part}, {"b.csv", part}}), "up.tgz", lim);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "archive_too_large");
}

TEST(ArchiveErrors, CorruptArchive) {
  std::string zip = build(Fmt::zip, {{"a.csv", std::string(4000, 'z')}});
  std::string cut = zip.substr(0, zip.size() / 2);
  auto r = pi::unpack_archive(cut, "cut.zip");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().file, "cut.zip");
  EXPECT_TRUE(r.error().code == "bad_archive" || r.error().code == "no_csv_in_archive") << r.error().code;

  std::string tgz = build(Fmt::tar_gz, {{"a.csv", std::string(100000, 'q')}});
  for (std::size_t i = 30; i < tgz.size(); i += 7) tgz[i] = static_cast<char>(tgz[i] ^ 0x5a);
  auto t = pi::unpack_archive(tgz, "bad.tgz");
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(t.error().code == "bad_archive" || t.error().code == "no_csv_in_archive") << t.error().code;

  std::string gz = build(Fmt::gz, {{"x", std::string(100000, 'q')}});
  for (std::size_t i = 30; i < gz.size(); i += 7) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  auto g = pi::unpack_archive(gz, "bad.csv.gz");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, "bad_archive");
  EXPECT_EQ(g.error().kind, perftriage::ErrorKind::invalid_input);
  EXPECT_EQ(g.error().file, "bad.csv.gz");

  auto n = pi::unpack_archive("plain text", "x.zip");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().code, "bad_archive");
}
