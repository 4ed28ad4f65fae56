#include "schema/blob_codec.hpp"

#include <openssl/evp.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

namespace perftriage::schema {

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), md.data(), &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 0xF]);
  }
  return out;
}

// Streamed through a small buffer into a growing string: an output of compressBound(size) allocated up front is
// written (zero-filled) in full and keeps its capacity, i.e. as many resident bytes as the input for the life of
// the result (1x of every upload). Appending touches only what the compressed bytes need.
std::string deflate_bytes(std::string_view bytes) {
  std::string out;
  z_stream zs{};
  // Level 1: CSVs compress ~5x even at the fastest level, and uploads are on the request path.
  if (deflateInit(&zs, 1) != Z_OK) return out;
  std::array<unsigned char, 256 * 1024> buf{};
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));  // NOLINT: zlib API is not const
  std::size_t left = bytes.size();
  for (;;) {
    if (zs.avail_in == 0 && left > 0) {
      const std::size_t n = std::min<std::size_t>(left, 1U << 30);
      zs.avail_in = static_cast<uInt>(n);
      left -= n;
    }
    zs.next_out = buf.data();
    zs.avail_out = static_cast<uInt>(buf.size());
    const int rc = deflate(&zs, left == 0 ? Z_FINISH : Z_NO_FLUSH);
    out.append(reinterpret_cast<const char*>(buf.data()), buf.size() - zs.avail_out);
    if (rc == Z_STREAM_END || (rc != Z_OK && rc != Z_BUF_ERROR)) break;
  }
  deflateEnd(&zs);
  return out;
}

// Streamed like deflate_bytes, for the same reason. Level 1 with one thread: the caller already compresses beside the
// scan (server/app/ingest_service.cpp), and a CSV of repeated columns loses little to the fastest level.
std::string compress_file_bytes(std::string_view bytes) {
  std::string out;
  const std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!cctx || ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 1)) ||
      ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(cctx.get(), bytes.size()))) {
    return out;
  }
  std::vector<char> buf(ZSTD_CStreamOutSize());
  ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
  for (;;) {
    ZSTD_outBuffer chunk{buf.data(), buf.size(), 0};
    const std::size_t left = ZSTD_compressStream2(cctx.get(), &chunk, &in, ZSTD_e_end);
    if (ZSTD_isError(left)) return {};
    out.append(buf.data(), chunk.pos);
    if (left == 0) break;
  }
  return out;
}

Result<std::string> inflate_bytes(std::string_view compressed, std::size_t original_size) {
  std::string out(original_size, '\0');
  // A zlib stream is never a zstd frame header (its first byte is 0x78, zstd's magic number starts 0x28).
  if (ZSTD_getFrameContentSize(compressed.data(), compressed.size()) != ZSTD_CONTENTSIZE_ERROR) {
    const std::size_t n = ZSTD_decompress(out.data(), out.size(), compressed.data(), compressed.size());
    if (ZSTD_isError(n) || n != original_size) {
      return make_error(ErrorKind::internal, "corrupt_blob", "stored file bytes do not inflate to their recorded size");
    }
    return out;
  }
  uLongf size = static_cast<uLongf>(original_size);
  if (uncompress(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(compressed.data()),
                 static_cast<uLong>(compressed.size())) != Z_OK ||
      size != original_size) {
    return make_error(ErrorKind::internal, "corrupt_blob", "stored file bytes do not inflate to their recorded size");
  }
  return out;
}

}  // namespace perftriage::schema
