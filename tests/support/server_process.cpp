// The end-to-end tests' HTTP client and token helper (server_process.hpp), compiled once for every suite.
#include "tests/support/server_process.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>

namespace perftriage::testing {

std::string create_token(const std::string& binary, const std::string& db, const std::string& name,
                         const std::string& scopes, const std::string& expires) {
  std::string cmd = "'" + binary + "' token create --db '" + db + "' --name '" + name + "' --scope '" + scopes + "'";
  if (!expires.empty()) cmd += " --expires '" + expires + "'";
  cmd += " --json";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("cannot run " + cmd);
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof buf, p)) out += buf;
  if (pclose(p) != 0) throw std::runtime_error("failed: " + cmd + ": " + out);
  const std::string key = "\"token\":\"";
  const auto at = out.find(key);
  const auto end = at == std::string::npos ? at : out.find('"', at + key.size());
  if (end == std::string::npos) throw std::runtime_error("no token in: " + out);
  return out.substr(at + key.size(), end - at - key.size());
}

HttpReply http_request(unsigned short port, const std::string& method, const std::string& target,
                       const std::map<std::string, std::string>& headers, const std::string& body) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::resolver resolver(ioc);
  beast::tcp_stream stream(ioc);
  stream.expires_after(std::chrono::seconds(30));
  stream.connect(resolver.resolve("127.0.0.1", std::to_string(port)));
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, "127.0.0.1");
  bool authorization = false;
  for (const auto& [name, value] : headers) {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower == "authorization") {
      authorization = true;
      if (value.empty()) continue;
    }
    req.set(name, value);
  }
  if (!authorization) {
    if (auto it = server_tokens().find(port); it != server_tokens().end()) {
      req.set(http::field::authorization, "Bearer " + it->second);
    }
  }
  req.body() = body;
  req.prepare_payload();
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(1ull << 30);
  http::read(stream, buffer, parser);
  auto res = parser.release();
  beast::error_code ec;
  stream.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
  return {static_cast<unsigned>(res.result_int()), res.body(), std::string(res[http::field::content_type])};
}

}  // namespace perftriage::testing
