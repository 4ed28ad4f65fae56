// Archive unpacking with libarchive, from memory, with limits against bombs.
#include "ingest/archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/strings.hpp"
#include "ingest/csv_reader.hpp"

namespace perftriage::ingest {
namespace {

bool is_tar_header(std::string_view block) { return block.size() >= 262 && block.substr(257, 5) == "ustar"; }

// Inflates the first bytes of a gzip stream (enough to see a tar header).
std::string gunzip_prefix(std::string_view bytes, std::size_t want) {
  std::string out(want, '\0');
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return {};
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));  // NOLINT: zlib API is not const
  zs.avail_in = static_cast<uInt>(std::min<std::size_t>(bytes.size(), 1U << 30));
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(want);
  int rc = Z_OK;
  while (zs.avail_out > 0 && rc == Z_OK) rc = inflate(&zs, Z_NO_FLUSH);
  out.resize(want - zs.avail_out);
  inflateEnd(&zs);
  return out;
}

// "./a//b/c.csv" -> "a/b/c.csv"; false when a ".." segment is present.
bool normalize_member(std::string_view raw, std::string& out) {
  std::string p(raw);
  for (char& c : p)
    if (c == '\\') c = '/';
  out.clear();
  std::string_view rest(p);
  while (!rest.empty()) {
    const std::size_t slash = rest.find('/');
    const std::string_view seg = rest.substr(0, slash);
    if (seg == "..") return false;
    if (!seg.empty() && seg != ".") {
      if (!out.empty()) out += '/';
      out += seg;
    }
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
  }
  return true;
}

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

Error bad_archive(std::string_view name, std::string_view why) {
  return make_error(ErrorKind::invalid_input, "bad_archive", fmt::format("{}: not a readable archive: {}", name, why),
                    std::string(name));
}

Error too_large(std::string_view name, std::string_view why) {
  return make_error(ErrorKind::too_large, "archive_too_large", fmt::format("{}: {}", name, why), std::string(name));
}

// Zip-slip and friends: refused naming the entry, even though members are never written to disk.
Error bad_path(std::string_view name, std::string_view entry, std::string_view why) {
  return make_error(ErrorKind::invalid_input, "bad_archive_path", fmt::format("{}: member '{}' {}", name, entry, why),
                    std::string(name));
}

// "/x", "\\x", "C:/x", "C:\\x".
bool is_absolute(std::string_view path) {
  if (!path.empty() && (path[0] == '/' || path[0] == '\\')) return true;
  return path.size() >= 2 && path[1] == ':' && std::isalpha(static_cast<unsigned char>(path[0])) != 0;
}

// More than `max_ratio` bytes out per byte of the archive read so far, once past the floor: a compression bomb.
// Judged against what was read, not the whole archive, so that a bomb is refused a few MiB in rather than at
// max_ratio times its whole size.
bool over_ratio(std::size_t out, std::size_t in, const UnpackLimits& limits) {
  return limits.max_ratio != 0 && out > limits.ratio_floor_bytes &&
         out / std::max<std::size_t>(in, 1) > limits.max_ratio;
}

std::string ratio_text(std::size_t out, std::size_t in, std::size_t whole, const UnpackLimits& limits) {
  return fmt::format(
      "expands more than {}x ({} bytes unpacked from the first {} of {} bytes): refused as a compression bomb "
      "([limits] max_archive_ratio)",
      limits.max_ratio, out, in, whole);
}

// zlib's gzip inflater, ended however the inflating ends.
struct GzipInflater {
  z_stream zs{};
  bool ok = false;
  GzipInflater() { ok = inflateInit2(&zs, 15 + 16) == Z_OK; }
  ~GzipInflater() {
    if (ok) inflateEnd(&zs);
  }
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;
};

// The inflated size the gzip trailer states (ISIZE: the last member's size mod 2^32) when the limits allow it, else 0:
// reserved up front, a legitimate file is one allocation instead of a string doubling to twice its size. Only a hint:
// pages a lying trailer reserves and nothing writes are never resident.
std::size_t stated_size(std::string_view bytes, std::size_t limit, const UnpackLimits& limits) {
  if (bytes.size() < 18) return 0;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - 4);
  const std::size_t isize =
      std::size_t{p[0]} | (std::size_t{p[1]} << 8) | (std::size_t{p[2]} << 16) | (std::size_t{p[3]} << 24);
  if (isize > limit || (limits.max_ratio != 0 && isize / bytes.size() > limits.max_ratio)) return 0;
  return isize;
}

// The limits of one .gz with `out` bytes inflated from its first `in` bytes.
Result<void> check_gunzip(std::size_t out, std::size_t in, std::string_view bytes, std::string_view name,
                          const UnpackLimits& limits) {
  const std::size_t limit = std::min(limits.max_entry_bytes, limits.max_total_bytes);
  if (out > limit)
    return too_large(name, fmt::format("the uncompressed file is larger than {} bytes ([limits] "
                                       "max_archive_entry_mb, max_archive_total_mb)",
                                       limit));
  if (over_ratio(out, in, limits)) return too_large(name, ratio_text(out, in, bytes.size(), limits));
  return {};
}

// A single .gz with zlib directly (libarchive's raw reader does not check the CRC): concatenated members are
// joined, CRC and length are verified, limits enforced every 64 KiB of output.
Result<std::string> gunzip_all(std::string_view bytes, std::string_view name, const UnpackLimits& limits) {
  GzipInflater inf;
  if (!inf.ok) return make_error(ErrorKind::internal, "archive_internal", "zlib init");
  z_stream& zs = inf.zs;
  std::string out;
  out.reserve(stated_size(bytes, std::min(limits.max_entry_bytes, limits.max_total_bytes), limits));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));  // NOLINT: zlib API is not const
  std::size_t left = bytes.size();
  std::array<char, 64 * 1024> buf{};
  for (;;) {
    if (zs.avail_in == 0 && left > 0) {
      const std::size_t n = std::min<std::size_t>(left, 1U << 30);
      zs.avail_in = static_cast<uInt>(n);
      left -= n;
    }
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());
    zs.avail_out = static_cast<uInt>(buf.size());
    const int rc = inflate(&zs, Z_NO_FLUSH);
    const std::size_t got = buf.size() - zs.avail_out;
    PT_TRY(check_gunzip(out.size() + got, bytes.size() - left - zs.avail_in, bytes, name, limits));
    out.append(buf.data(), got);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0 && left == 0) break;
      // another gzip member follows (or trailing garbage: then the reset/inflate below reports it)
      if (inflateReset(&zs) != Z_OK) break;
      continue;
    }
    if (rc != Z_OK && !(rc == Z_BUF_ERROR && got > 0)) {
      return bad_archive(name, zs.msg != nullptr ? zs.msg : (rc == Z_BUF_ERROR ? "truncated data" : "corrupt data"));
    }
  }
  return out;
}

// A single .gz file: one member, named after the file without ".gz".
Result<std::vector<InputFile>> unpack_gzip(std::string_view bytes, std::string_view archive_name,
                                           const UnpackLimits& limits) {
  std::string_view n = archive_name;
  if (iends_with(n, ".gz")) n.remove_suffix(3);
  std::string member;
  if (!normalize_member(n, member))
    return make_error(ErrorKind::invalid_input, "bad_archive_path",
                      fmt::format("{}: the name climbs out with '..'", archive_name), std::string(archive_name));
  if (!iends_with(member, ".csv"))
    return make_error(ErrorKind::invalid_input, "no_csv_in_archive",
                      fmt::format("{}: a gzip file whose name does not end in .csv.gz", archive_name),
                      std::string(archive_name));
  PT_ASSIGN(std::string data, gunzip_all(bytes, archive_name, limits));
  std::vector<InputFile> out;
  out.push_back(InputFile{std::move(member), std::move(data)});
  return out;
}

using ArchivePtr = std::unique_ptr<archive, ArchiveDeleter>;

constexpr std::size_t kReadBlock = 64 * 1024;

// A libarchive reader over `bytes` for a zip, tar or tar.gz.
Result<ArchivePtr> open_archive(ArchiveType type, std::string_view bytes, std::string_view archive_name) {
  ArchivePtr ar(archive_read_new());
  if (!ar) return make_error(ErrorKind::internal, "archive_internal", "libarchive: out of memory");
  switch (type) {
    case ArchiveType::zip: archive_read_support_format_zip(ar.get()); break;
    case ArchiveType::tar: archive_read_support_format_tar(ar.get()); break;
    case ArchiveType::tar_gz:
      archive_read_support_filter_gzip(ar.get());
      archive_read_support_format_tar(ar.get());
      break;
    case ArchiveType::gzip:
    case ArchiveType::none: break;
  }
  // Offered a block at a time: archive_filter_bytes counts what the readers consumed (see archive_read), and a reader
  // that consumes whatever it is offered can then run at most a block ahead of what it has unpacked.
  if (archive_read_open_memory2(ar.get(), bytes.data(), bytes.size(), kReadBlock) != ARCHIVE_OK)
    return bad_archive(archive_name, archive_error_string(ar.get()) ? archive_error_string(ar.get()) : "open failed");
  return ar;
}

// Where unpack_archive stands: the archive, its limits, and the bytes unpacked so far.
struct Unpacking {
  archive* ar;
  std::string_view archive_name;
  std::size_t archive_bytes;
  const UnpackLimits& limits;
  std::size_t total = 0;
  std::array<char, 64 * 1024> buf{};
};

// The archive's bytes libarchive has read so far (all that was unpacked came from these); the whole archive when it
// cannot say.
std::size_t archive_read(const Unpacking& u) {
  const la_int64_t n = archive_filter_bytes(u.ar, -1);
  return n > 0 ? std::min(static_cast<std::size_t>(n), u.archive_bytes) : u.archive_bytes;
}

// The size a member's header states, before any of its data is unpacked: over a limit, or more than the ratio allows
// for the whole archive (the data would be refused when it came; a header that lies about it is refused all the
// same), it is refused at once.
Result<void> check_stated_size(archive_entry* entry, const std::string& member, const Unpacking& u) {
  if (archive_entry_size_is_set(entry) == 0 || archive_entry_size(entry) < 0) return {};
  const auto stated = static_cast<std::size_t>(archive_entry_size(entry));
  if (stated > u.limits.max_entry_bytes)
    return too_large(u.archive_name, fmt::format("member '{}' is larger than {} bytes uncompressed ([limits] "
                                                 "max_archive_entry_mb)",
                                                 member, u.limits.max_entry_bytes));
  if (over_ratio(u.total + stated, u.archive_bytes, u.limits))
    return too_large(u.archive_name, fmt::format("member '{}' states {} bytes uncompressed, more than {}x the {} "
                                                 "bytes of the archive: refused as a compression bomb ([limits] "
                                                 "max_archive_ratio)",
                                                 member, stated, u.limits.max_ratio, u.archive_bytes));
  return {};
}

// The member path of `entry` when it is a .csv file to read; "" for an entry to skip (a directory, another file).
Result<std::string> csv_member(archive_entry* entry, const Unpacking& u) {
  const char* p = archive_entry_pathname(entry);
  const std::string path = p != nullptr ? p : "";
  const auto filetype = archive_entry_filetype(entry);
  if (filetype == AE_IFDIR) return std::string();
  if (filetype == AE_IFLNK || archive_entry_symlink(entry) != nullptr || archive_entry_hardlink(entry) != nullptr)
    return bad_path(u.archive_name, path, "is a link: archives with symlinks or hardlinks are refused");
  if (filetype != AE_IFREG) return bad_path(u.archive_name, path, "is not a regular file");
  if (is_absolute(path)) return bad_path(u.archive_name, path, "has an absolute path");
  std::string norm;
  if (!normalize_member(path, norm)) return bad_path(u.archive_name, path, "climbs out of the archive with '..'");
  if (norm.empty() || !iends_with(norm, ".csv")) return std::string();
  PT_TRY(check_stated_size(entry, norm, u));
  return norm;
}

// The data of the current member, the limits counting the bytes actually read.
Result<void> read_member(archive_entry* entry, InputFile& f, Unpacking& u) {
  const UnpackLimits& limits = u.limits;
  // one allocation of the stated size (appending 64 KiB at a time would double the buffer up to 2x the member);
  // the stated size is only a hint
  if (archive_entry_size_is_set(entry) != 0 && archive_entry_size(entry) > 0)
    f.bytes.reserve(std::min({static_cast<std::size_t>(archive_entry_size(entry)), limits.max_entry_bytes,
                              limits.max_total_bytes - u.total}));
  for (;;) {
    const la_ssize_t got = archive_read_data(u.ar, u.buf.data(), u.buf.size());
    if (got == 0) return {};
    if (got < 0) {
      const char* why = archive_error_string(u.ar);
      return bad_archive(u.archive_name, why ? why : "corrupt member data");
    }
    const auto n = static_cast<std::size_t>(got);
    if (f.bytes.size() + n > limits.max_entry_bytes)
      return too_large(u.archive_name, fmt::format("member '{}' is larger than {} bytes uncompressed ([limits] "
                                                   "max_archive_entry_mb)",
                                                   f.path, limits.max_entry_bytes));
    if (u.total + n > limits.max_total_bytes)
      return too_large(u.archive_name, fmt::format("members are larger than {} bytes uncompressed in all ([limits] "
                                                   "max_archive_total_mb)",
                                                   limits.max_total_bytes));
    u.total += n;
    if (const std::size_t in = archive_read(u); over_ratio(u.total, in, limits))
      return too_large(u.archive_name,
                       fmt::format("member '{}' {}", f.path, ratio_text(u.total, in, u.archive_bytes, limits)));
    f.bytes.append(u.buf.data(), n);
  }
}

}  // namespace

ArchiveType detect_archive(std::string_view bytes) {
  if (bytes.size() >= 4 && (bytes.substr(0, 4) == std::string_view("PK\x03\x04", 4) ||
                            bytes.substr(0, 4) == std::string_view("PK\x05\x06", 4)))
    return ArchiveType::zip;
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b)
    return is_tar_header(gunzip_prefix(bytes, 512)) ? ArchiveType::tar_gz : ArchiveType::gzip;
  if (is_tar_header(bytes)) return ArchiveType::tar;
  return ArchiveType::none;
}

Result<std::vector<InputFile>> unpack_archive(std::string_view bytes, std::string_view archive_name,
                                              const UnpackLimits& limits) {
  const ArchiveType type = detect_archive(bytes);
  if (type == ArchiveType::none) return bad_archive(archive_name, "not a zip, tar, tar.gz or gzip file");
  if (type == ArchiveType::gzip) return unpack_gzip(bytes, archive_name, limits);

  PT_ASSIGN(const ArchivePtr ar, open_archive(type, bytes, archive_name));
  Unpacking u{ar.get(), archive_name, bytes.size(), limits};
  std::vector<InputFile> out;
  std::size_t entries = 0;
  for (;;) {
    archive_entry* entry = nullptr;
    const int rc = archive_read_next_header(ar.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN || entry == nullptr) {
      const char* why = archive_error_string(ar.get());
      return bad_archive(archive_name, why ? why : "corrupt entry header");
    }
    if (++entries > limits.max_entries) {
      const char* p = archive_entry_pathname(entry);
      return too_large(archive_name, fmt::format("more than {} entries (member '{}' is entry {}; [limits] "
                                                 "max_archive_entries)",
                                                 limits.max_entries, p != nullptr ? p : "", entries));
    }
    PT_ASSIGN(std::string member, csv_member(entry, u));
    if (member.empty()) continue;  // archive_read_next_header skips the data
    InputFile f;
    f.path = std::move(member);
    PT_TRY(read_member(entry, f, u));
    out.push_back(std::move(f));
  }
  if (out.empty())
    return make_error(ErrorKind::invalid_input, "no_csv_in_archive",
                      fmt::format("{}: the archive holds no .csv file", archive_name), std::string(archive_name));
  return out;
}

}  // namespace perftriage::ingest
