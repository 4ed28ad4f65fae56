#include "server/http/wire.hpp"

#include <boost/asio/error.hpp>

#include <algorithm>
#include <sstream>

#include "common/log.hpp"
#include "common/strings.hpp"

namespace perftriage::server::transport {
namespace {

// Every response: no MIME sniffing, never framed. JSON and text get a policy that allows nothing at all; the
// dashboard's HTML gets the one its <meta> tag states, plus frame-ancestors (which a <meta> tag cannot set).
constexpr const char* kCspNone = "default-src 'none'; frame-ancestors 'none'";
constexpr const char* kCspHtml =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

template <class Body>
void set_head(http::response<Body>& res, const ApiResponse& api, bool keep_alive, std::size_t size) {
  res.set(http::field::server, "perftriage");
  if (!api.content_type.empty()) res.set(http::field::content_type, api.content_type);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Content-Security-Policy", api.content_type.rfind("text/html", 0) == 0 ? kCspHtml : kCspNone);
  for (const auto& [name, value] : api.headers) res.set(name, value);
  res.keep_alive(keep_alive);
  if (api.status != 304) res.content_length(size);  // a 304 has no body, and no length of one
}

}  // namespace

void fail(beast::error_code ec, const char* what) {
  // Peers closing or timing out are routine; anything else is worth a line.
  if (ec == asio::error::operation_aborted || ec == beast::error::timeout || ec == asio::error::eof ||
      ec == http::error::end_of_stream || ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
      ec == http::error::partial_message) {
    return;
  }
  log().warn("{}: {}", what, ec.message());
}

std::chrono::steady_clock::duration seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(std::max(0.001, s)));
}

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

std::string mib(std::uint64_t bytes) {
  if (bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % (1u << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

HeaderFields header_fields(const http::request_header<>& req) {
  HeaderFields out;
  for (const auto& field : req) {
    out.emplace_back(std::string_view(field.name_string().data(), field.name_string().size()),
                     std::string_view(field.value().data(), field.value().size()));
  }
  return out;
}

ApiRequest request_head(const http::request_header<>& req) {
  ApiRequest out;
  out.method = std::string(req.method_string());
  const std::string_view target(req.target().data(), req.target().size());
  const auto qpos = target.find('?');
  out.path = std::string(target.substr(0, qpos));
  if (qpos != std::string_view::npos) out.query = parse_query(target.substr(qpos + 1));
  for (const auto& field : req) {
    const auto name = field.name_string();
    out.headers[lower({name.data(), name.size()})] = std::string(field.value());
  }
  return out;
}

http::response<http::string_body> to_http_response(ApiResponse api, unsigned version, bool keep_alive, bool head) {
  http::response<http::string_body> res{static_cast<http::status>(api.status), version};
  set_head(res, api, keep_alive, api.body.size());
  if (!head) res.body() = std::move(api.body);
  return res;
}

std::shared_ptr<SharedResponse> to_shared_response(ApiResponse api, unsigned version, bool keep_alive, bool head) {
  auto out = std::make_shared<SharedResponse>();
  out->bytes = std::move(api.shared_body);
  out->res = http::response<http::buffer_body>{static_cast<http::status>(api.status), version};
  set_head(out->res, api, keep_alive, out->bytes->size());
  auto& body = out->res.body();
  body.data = head || out->bytes->empty() ? nullptr : const_cast<char*>(out->bytes->data());  // only ever read
  body.size = head ? 0 : out->bytes->size();
  body.more = false;
  return out;
}

}  // namespace perftriage::server::transport
