#pragma once
// Between Beast's messages and the router's values (server/http/http_types.hpp): a request head read into an
// ApiRequest, an ApiResponse written as a Beast response with the headers every answer carries. The listener and the
// session use it; nothing outside server/http/ sees Beast.
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "server/http/framing.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::server::transport {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Logs a transport error unless it is routine (a peer closing or timing out).
void fail(beast::error_code ec, const char* what);
// A setting in seconds as a timer duration (at least 1 ms), and as text for a message ("2.5 s").
std::chrono::steady_clock::duration seconds(double s);
std::string seconds_text(double s);
// A byte count as the settings name it: "64 MiB", "16 KiB", else bytes.
std::string mib(std::uint64_t bytes);

// The head's fields as sent, repeated ones kept (request_head keeps the last of each): what framing_error reads.
HeaderFields header_fields(const http::request_header<>& req);
// Method, path, query and headers; the body is moved in separately (it may be hundreds of MB).
ApiRequest request_head(const http::request_header<>& req);

// The answer with the head every response gets: security headers, the handler's own, keep-alive and the length.
http::response<http::string_body> to_http_response(ApiResponse api, unsigned version, bool keep_alive, bool head);

// An answer whose bytes belong to a response cache entry: written from the entry, which this keeps alive.
struct SharedResponse {
  std::shared_ptr<const std::string> bytes;
  http::response<http::buffer_body> res;
};
std::shared_ptr<SharedResponse> to_shared_response(ApiResponse api, unsigned version, bool keep_alive, bool head);

}  // namespace perftriage::server::transport
