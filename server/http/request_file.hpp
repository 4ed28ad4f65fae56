#pragma once
// The one file of a request (POST /api/v1/classify, a case's artifacts): the body itself, or the one file part of a
// multipart/form-data body.
#include <string>

#include "common/result.hpp"
#include "server/app/artifact_service.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::server {

// The body as one file (any content type), or the one file part of a multipart/form-data body.
// Name: ?name=, else the part's filename, else `fallback_name`. Empty body or file -> invalid_input.
// The result may view the request's bytes (`req.bytes()`): use it while the request lives.
Result<UploadedFile> uploaded_file(const ApiRequest& req, const std::string& fallback_name);

}  // namespace perftriage::server
