#include "schema/blob_codec.hpp"

#include <openssl/evp.h>
#include <zlib.h>

#include <array>

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

std::string deflate_bytes(std::string_view bytes) {
  uLongf size = compressBound(static_cast<uLong>(bytes.size()));
  std::string out(size, '\0');
  // Level 1: CSVs compress ~5x even at the fastest level, and uploads are on the request path.
  compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(bytes.data()),
            static_cast<uLong>(bytes.size()), 1);
  out.resize(size);
  return out;
}

Result<std::string> inflate_bytes(std::string_view compressed, std::size_t original_size) {
  std::string out(original_size, '\0');
  uLongf size = static_cast<uLongf>(original_size);
  if (uncompress(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(compressed.data()),
                 static_cast<uLong>(compressed.size())) != Z_OK ||
      size != original_size) {
    return make_error(ErrorKind::internal, "corrupt_blob", "stored file bytes do not inflate to their recorded size");
  }
  return out;
}

}  // namespace perftriage::schema
