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

// Output of one inflate call at most: the limits are judged at least this often, so a bomb is refused within a
// step of crossing them instead of after filling whatever the doubled buffer can hold.
constexpr std::size_t kStep = 1 << 20;

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

// One gunzip in progress: the input, what zlib has consumed of it and produced from it so far.
struct Gunzip {
  Gunzip(std::string_view compressed, std::string_view file_name, const ClassifyOptions& o)
      : in(compressed), file(file_name), options(o) {}
  std::string_view in;
  std::string file;
  const ClassifyOptions& options;
  Inflater inf;
  PaddedBuffer out;
  std::size_t in_pos = 0;
  std::uint64_t produced = 0;
};

// The ratio is judged against the compressed bytes consumed so far, not the whole input: against the whole input a
// 1 MB bomb could inflate to ratio x 1 MB before anything noticed.
bool over_ratio(const Gunzip& g) {
  return g.produced > g.options.ratio_check_min_bytes &&
         static_cast<double>(g.produced) >
             g.options.max_gzip_ratio * static_cast<double>(std::max<std::size_t>(g.in_pos, 1));
}

Error bomb(const Gunzip& g, std::uint64_t produced) {
  return make_error(ErrorKind::too_large, "gzip_bomb",
                    fmt::format("gzip inflates past the limit ({} bytes inflated from the first {} of {} compressed "
                                "bytes; limits: {} bytes, ratio {:.0f} past {} bytes); refusing it as a possible "
                                "gzip bomb",
                                produced, g.in_pos, g.in.size(), g.options.max_decompressed_bytes,
                                g.options.max_gzip_ratio, g.options.ratio_check_min_bytes),
                    g.file);
}

Error bad_gzip(const Gunzip& g, const std::string& why) {
  return make_error(ErrorKind::unprocessable, "bad_gzip", why, g.file);
}

// ISIZE is the last member's size mod 2^32: trusted only when it is plausible. Pages of the guess that are never
// written are never resident, so an optimistic guess costs address space, not memory.
std::uint64_t initial_capacity(std::string_view compressed, const ClassifyOptions& options) {
  const std::uint64_t limit = options.max_decompressed_bytes;
  const std::uint64_t guess = trailer_isize(compressed);
  const double ratio = static_cast<double>(guess) / static_cast<double>(compressed.size());
  if (guess == 0 || guess > limit || ratio > options.max_gzip_ratio || ratio < 1.0) {
    return std::min<std::uint64_t>(limit, std::max<std::uint64_t>(compressed.size() * 8, 1 << 16));
  }
  return guess;
}

// Room for the next step: the buffer doubles when full, never past max_decompressed_bytes.
Result<void> make_room(Gunzip& g) {
  if (g.produced < g.out.capacity()) return {};
  const std::uint64_t limit = g.options.max_decompressed_bytes;
  if (g.produced >= limit) return bomb(g, g.produced + 1);  // the stream goes on past the limit
  const std::uint64_t next = std::min<std::uint64_t>(limit, std::max<std::uint64_t>(g.produced * 2, 1 << 16));
  if (!g.out.grow(static_cast<std::size_t>(next))) {
    return make_error(ErrorKind::too_large, "out_of_memory", fmt::format("cannot allocate {} bytes", next), g.file);
  }
  return {};
}

// One inflate call of at most kStep bytes out; zlib's return code.
int inflate_step(Gunzip& g) {
  const std::size_t in_avail = std::min<std::size_t>(g.in.size() - g.in_pos, std::numeric_limits<uInt>::max());
  const std::size_t out_avail = std::min<std::size_t>(static_cast<std::size_t>(g.out.capacity() - g.produced), kStep);
  g.inf.zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(g.in.data() + g.in_pos));
  g.inf.zs.avail_in = static_cast<uInt>(in_avail);
  g.inf.zs.next_out = reinterpret_cast<Bytef*>(g.out.data() + g.produced);
  g.inf.zs.avail_out = static_cast<uInt>(out_avail);
  const int rc = inflate(&g.inf.zs, Z_NO_FLUSH);
  g.in_pos += in_avail - g.inf.zs.avail_in;
  g.produced += out_avail - g.inf.zs.avail_out;
  return rc;
}

// At the end of a member: true when the input ends (trailing zero padding is tolerated), false when another member
// follows (concatenated gzip) and the inflater is reset for it.
Result<bool> member_end(Gunzip& g) {
  const std::string_view rest = g.in.substr(g.in_pos);
  if (rest.find_first_not_of('\0') == std::string_view::npos) return true;
  if (!is_gzip(rest)) return bad_gzip(g, fmt::format("garbage after the gzip stream at byte {}", g.in_pos));
  if (inflateReset(&g.inf.zs) != Z_OK) {
    return make_error(ErrorKind::internal, "zlib_reset", "inflateReset failed", g.file);
  }
  return false;
}

// Inflates until the last member ends; the limits judged after every step.
Result<void> inflate_all(Gunzip& g) {
  for (;;) {
    PT_TRY(make_room(g));
    const int rc = inflate_step(g);
    if (over_ratio(g)) return bomb(g, g.produced);
    if (rc == Z_STREAM_END) {
      PT_ASSIGN(const bool done, member_end(g));
      if (done) return {};
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR) {
      if (g.in_pos >= g.in.size() && g.inf.zs.avail_out != 0) {
        return bad_gzip(g, fmt::format("the gzip stream is truncated ({} bytes inflated)", g.produced));
      }
      continue;  // output full: room is made above
    }
    return bad_gzip(g,
                    fmt::format("corrupt gzip stream ({})", g.inf.zs.msg != nullptr ? g.inf.zs.msg : "inflate error"));
  }
}

}  // namespace

Result<PaddedBuffer> gunzip(std::string_view compressed, std::string_view file_name, const ClassifyOptions& options) {
  Gunzip g(compressed, file_name, options);
  if (!is_gzip(compressed)) return bad_gzip(g, "not a gzip stream");
  const std::uint64_t guess = initial_capacity(compressed, options);
  if (!g.out.allocate(static_cast<std::size_t>(guess))) {
    return make_error(ErrorKind::too_large, "out_of_memory", fmt::format("cannot allocate {} bytes", guess), g.file);
  }
  if (!g.inf.ok) return make_error(ErrorKind::internal, "zlib_init", "zlib inflateInit2 failed", g.file);
  PT_TRY(inflate_all(g));
  g.out.set_size(static_cast<std::size_t>(g.produced));
  return std::move(g.out);
}

}  // namespace perftriage::analyzers::trace
