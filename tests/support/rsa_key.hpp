#pragma once
// A fresh RSA key pair in PEM for the GitHub App tests (the private half for the service, the public half for the
// fake GitHub), and what checking a JWT takes: base64url decoding and an RS256 verification.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>
#include <string>
#include <string_view>

namespace perftriage::testing {

struct RsaKeyPair {
  std::string private_pem;  // PKCS#8
  std::string public_pem;   // SubjectPublicKeyInfo
};

inline std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

inline RsaKeyPair make_rsa_key(unsigned bits = 2048) {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_RSA_gen(bits), EVP_PKEY_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> priv(BIO_new(BIO_s_mem()), BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> pub(BIO_new(BIO_s_mem()), BIO_free);
  if (!key || !PEM_write_bio_PrivateKey(priv.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) ||
      !PEM_write_bio_PUBKEY(pub.get(), key.get())) {
    return {};
  }
  return {bio_text(priv.get()), bio_text(pub.get())};
}

// RFC 7515's base64url (no padding) decoded; "" when it is not base64.
inline std::string base64url_decode(std::string_view in) {
  std::string b64(in);
  for (char& c : b64) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (b64.size() % 4 != 0) b64 += '=';
  std::string out(b64.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(b64.data()), static_cast<int>(b64.size()));
  if (n < 0) return {};
  std::size_t pad = 0;
  for (auto it = b64.rbegin(); it != b64.rend() && *it == '='; ++it) ++pad;
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

// Whether `signature` is the RS256 signature of `signed_part` by the key whose public half is `public_pem`.
inline bool rs256_verifies(const std::string& public_pem, std::string_view signed_part, const std::string& signature) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size())),
                                                BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1;
}

}  // namespace perftriage::testing
