#include "server/http/framing.hpp"

#include <algorithm>
#include <string_view>

#include "common/strings.hpp"

namespace perftriage::server {
namespace {

Error refuse(std::string code, std::string message, std::string field) {
  return make_error(ErrorKind::invalid_input, std::move(code), std::move(message), {}, 0, std::move(field));
}

std::vector<std::string_view> values_of(const HeaderFields& fields, std::string_view name) {
  std::vector<std::string_view> out;
  for (const auto& [n, v] : fields) {
    if (iequals(n, name)) out.emplace_back(v);
  }
  return out;
}

bool is_decimal(std::string_view v) {
  v = trim(v, " \t");
  return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<Error> transfer_encoding_error(unsigned version, const std::vector<std::string_view>& te,
                                             bool has_length) {
  if (te.empty()) return std::nullopt;
  if (version < 11) return refuse("bad_framing", "Transfer-Encoding is not HTTP/1.0", "transfer-encoding");
  if (has_length) {
    return refuse("bad_framing", "Transfer-Encoding and Content-Length together: the body's end is ambiguous",
                  "transfer-encoding");
  }
  if (te.size() != 1 || !iequals(trim(te.front(), " \t"), "chunked")) {
    return refuse("bad_framing", "the only Transfer-Encoding taken is `chunked`", "transfer-encoding");
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> framing_error(unsigned version, const HeaderFields& fields) {
  const auto lengths = values_of(fields, "content-length");
  if (auto e = transfer_encoding_error(version, values_of(fields, "transfer-encoding"), !lengths.empty())) return e;
  if (lengths.size() > 1) return refuse("bad_framing", "more than one Content-Length", "content-length");
  if (lengths.size() == 1 && !is_decimal(lengths.front())) {
    return refuse("bad_framing", "Content-Length is not a decimal number", "content-length");
  }
  const auto hosts = values_of(fields, "host").size();
  if (hosts > 1 || (version >= 11 && hosts == 0)) {
    return refuse("bad_framing", version >= 11 ? "an HTTP/1.1 request has exactly one Host" : "more than one Host",
                  "host");
  }
  if (values_of(fields, "authorization").size() > 1) {
    return refuse("duplicate_header", "more than one Authorization: send one token", "authorization");
  }
  return std::nullopt;
}

}  // namespace perftriage::server
