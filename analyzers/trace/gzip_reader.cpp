#include "analyzers/trace/gzip_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace perftriage::analyzers::trace {

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 18 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

std::uint64_t trailer_isize(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - 4);
  return std::uint64_t{p[0]} | (std::uint64_t{p[1]} << 8) | (std::uint64_t{p[2]} << 16) | (std::uint64_t{p[3]} << 24);
}

struct Inflater {
  z_stream zs{};
  bool ok = false;
  Inflater() { ok = inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK; }
  ~Inflater() {
    if (ok) inflateEnd(&zs);
  }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
};

}  // namespace

Result<PaddedBuffer> gunzip(std::string_view compressed, std::string_view file_name, const ClassifyOptions& options) {
  const std::string file(file_name);
  if (!is_gzip(compressed)) {
    return make_error(ErrorKind::unprocessable, "bad_gzip", "not a gzip stream", file);
  }
  const std::uint64_t limit = options.max_decompressed_bytes;
  auto over_ratio = [&](std::uint64_t produced) {
    return produced > options.ratio_check_min_bytes &&
           static_cast<double>(produced) > options.max_gzip_ratio * static_cast<double>(compressed.size());
  };
  auto bomb = [&](std::uint64_t produced) {
    return make_error(ErrorKind::too_large, "gzip_bomb",
                      fmt::format("gzip inflates past the limit ({} bytes from {} compressed; limits: {} bytes, "
                                  "ratio {:.0f}); refusing it as a possible gzip bomb",
                                  produced, compressed.size(), limit, options.max_gzip_ratio),
                      file);
  };

  // ISIZE is the last member's size mod 2^32: trust it only when it is plausible.
  std::uint64_t guess = trailer_isize(compressed);
  const double ratio = static_cast<double>(guess) / static_cast<double>(compressed.size());
  if (guess == 0 || guess > limit || ratio > options.max_gzip_ratio || ratio < 1.0) {
    guess = std::min<std::uint64_t>(limit, std::max<std::uint64_t>(compressed.size() * 8, 1 << 16));
  }
  PaddedBuffer out;
  if (!out.allocate(static_cast<std::size_t>(guess))) {
    return make_error(ErrorKind::too_large, "out_of_memory", fmt::format("cannot allocate {} bytes", guess), file);
  }

  Inflater inf;
  if (!inf.ok) return make_error(ErrorKind::internal, "zlib_init", "zlib inflateInit2 failed", file);
  std::size_t in_pos = 0;
  std::uint64_t produced = 0;
  for (;;) {
    if (produced == out.capacity()) {
      if (produced >= limit) return bomb(produced + 1);
      const std::uint64_t next = std::min<std::uint64_t>(limit, std::max<std::uint64_t>(produced * 2, 1 << 16));
      if (!out.grow(static_cast<std::size_t>(next))) {
        return make_error(ErrorKind::too_large, "out_of_memory", fmt::format("cannot allocate {} bytes", next), file);
      }
    }
    const std::size_t in_avail = std::min<std::size_t>(compressed.size() - in_pos, std::numeric_limits<uInt>::max());
    const std::size_t out_avail =
        std::min<std::size_t>(static_cast<std::size_t>(out.capacity() - produced), std::numeric_limits<uInt>::max());
    inf.zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + in_pos));
    inf.zs.avail_in = static_cast<uInt>(in_avail);
    inf.zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    inf.zs.avail_out = static_cast<uInt>(out_avail);
    const int rc = inflate(&inf.zs, Z_NO_FLUSH);
    in_pos += in_avail - inf.zs.avail_in;
    produced += out_avail - inf.zs.avail_out;
    if (over_ratio(produced)) return bomb(produced);
    if (rc == Z_STREAM_END) {
      // Another member may follow (concatenated gzip); trailing zero padding is tolerated.
      const std::string_view rest = compressed.substr(in_pos);
      if (rest.find_first_not_of('\0') == std::string_view::npos) break;
      if (!is_gzip(rest)) {
        return make_error(ErrorKind::unprocessable, "bad_gzip",
                          fmt::format("garbage after the gzip stream at byte {}", in_pos), file);
      }
      if (inflateReset(&inf.zs) != Z_OK)
        return make_error(ErrorKind::internal, "zlib_reset", "inflateReset failed", file);
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR) {
      if (in_pos >= compressed.size() && inf.zs.avail_out != 0) {
        return make_error(ErrorKind::unprocessable, "bad_gzip",
                          fmt::format("the gzip stream is truncated ({} bytes inflated)", produced), file);
      }
      continue;  // output full: grow above
    }
    return make_error(ErrorKind::unprocessable, "bad_gzip",
                      fmt::format("corrupt gzip stream ({})", inf.zs.msg != nullptr ? inf.zs.msg : "inflate error"),
                      file);
  }
  out.set_size(static_cast<std::size_t>(produced));
  return out;
}

}  // namespace perftriage::analyzers::trace
