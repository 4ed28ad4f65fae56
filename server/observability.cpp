#include "server/observability.hpp"

// STUB (skeleton): replaced by the real implementation.
namespace perftriage::server {

struct Observability::Impl {};
Observability::Observability() : impl_(std::make_unique<Impl>()) {}
Observability::~Observability() = default;
void Observability::request_done(const RequestRecord&) {}
void Observability::connection_opened() {}
void Observability::connection_closed() {}
void Observability::connection_refused(std::string_view) {}
void Observability::rows_ingested(std::int64_t) {}
void Observability::upload_refused(std::string_view) {}
void Observability::webhook_delivery(std::string_view, std::string_view) {}
void Observability::cache_lookup(std::string_view, bool) {}
std::string Observability::render(AppContext&) { return {}; }
std::string request_id_for(const ApiRequest&) { return {}; }
void stamp_response(ApiResponse&, std::string_view) {}

}  // namespace perftriage::server
