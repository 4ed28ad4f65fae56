// gzip input of the trace classifier with a VALID gzip stream (mutating a .gz seed mostly breaks its CRC): the
// harness gzips the input (as one member, or two concatenated members when the input length is odd) and checks
// that classifying the gzip gives what classifying the plain bytes gives, apart from "compressed".
#include <zlib.h>

#include <string>

#include "analyzers/trace/classify.hpp"
#include "fuzz/fuzz_util.hpp"

using namespace perftriage;
namespace tr = perftriage::analyzers::trace;

namespace {

std::string gzip_member(std::string_view in) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&zs, static_cast<uLong>(in.size())) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

tr::ClassifyOptions options() {
  tr::ClassifyOptions o;
  o.max_decompressed_bytes = 64ull << 20;
  o.ratio_check_min_bytes = 64ull << 20;  // small inputs compress far beyond 250x: judge only the byte limit
  o.chunk_bytes = 4096;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view plain = fuzz::as_view(data, size);
  std::string gz;
  if (size % 2 == 1) {
    gz = gzip_member(plain.substr(0, size / 2)) + gzip_member(plain.substr(size / 2));
  } else {
    gz = gzip_member(plain);
  }
  auto zipped = tr::classify_bytes(gz, "fuzz.json.gz", options());
  if (zipped) (void)perftriage::dump_json(*zipped);
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) return 0;  // gzip inside gzip: not the same input
  auto direct = tr::classify_bytes(plain, "fuzz.json.gz", options());
  FUZZ_CHECK(zipped.ok() == direct.ok(), "gzip changes the outcome: gzip -> " +
                                             (zipped ? std::string("ok") : zipped.error().code) + ", plain -> " +
                                             (direct ? std::string("ok") : direct.error().code));
  if (zipped && direct) {
    FUZZ_CHECK((*zipped)["compressed"] == true && (*direct)["compressed"] == false, "compressed flag");
    (*zipped)["compressed"] = false;
    FUZZ_CHECK(*zipped == *direct,
               "gzip changes the result:\n" + perftriage::dump_json(*zipped) + "\n" + perftriage::dump_json(*direct));
  } else if (!zipped && !direct) {
    FUZZ_CHECK(zipped.error().code == direct.error().code,
               "gzip changes the error: " + zipped.error().code + " vs " + direct.error().code);
  }
  return 0;
}
