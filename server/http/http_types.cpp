#include "server/http/http_types.hpp"

#include <cctype>

#include "common/error_json.hpp"

namespace perftriage::server {

ApiResponse json_response(unsigned status, const nlohmann::json& body) {
  return text_response(status, "application/json", dump_json(body) + "\n");
}

ApiResponse text_response(unsigned status, std::string content_type, std::string body) {
  ApiResponse r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

unsigned http_status(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_input: return 400;
    case ErrorKind::unauthorized: return 401;
    case ErrorKind::forbidden: return 403;
    case ErrorKind::not_found: return 404;
    case ErrorKind::conflict: return 409;
    case ErrorKind::too_large: return 413;
    case ErrorKind::unsupported_media_type: return 415;
    case ErrorKind::unprocessable: return 422;
    case ErrorKind::too_many_requests: return 429;
    case ErrorKind::unavailable: return 503;
    case ErrorKind::internal: return 500;
  }
  return 500;
}

ApiResponse error_response(const Error& error) {
  auto res = json_response(http_status(error.kind), {{"error", to_json(error)}});
  // RFC 9110 §15.5.2: every 401 carries a challenge. Clients authenticate with `Authorization: Bearer TOKEN`
  // (server/http/auth.hpp); RFC 6750's error="invalid_token" tells a client its token, not its request, was refused.
  if (error.kind == ErrorKind::unauthorized) {
    res.headers.emplace_back("WWW-Authenticate", error.code == "invalid_token"
                                                     ? R"(Bearer realm="perftriage", error="invalid_token")"
                                                     : R"(Bearer realm="perftriage")");
  }
  return res;
}

std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string url_decode(std::string_view s, bool plus_is_space) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
      i += 2;
    } else if (s[i] == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::map<std::string, std::string> parse_query(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    std::string key = url_decode(pair.substr(0, eq), true);
    std::string value = eq == std::string_view::npos ? std::string{} : url_decode(pair.substr(eq + 1), true);
    out[std::move(key)] = std::move(value);
  }
  return out;
}

std::string media_type(std::string_view content_type) {
  std::string t;
  for (const unsigned char c : content_type.substr(0, content_type.find(';'))) {
    if (!std::isspace(c)) t += static_cast<char>(std::tolower(c));
  }
  return t;
}

}  // namespace perftriage::server
