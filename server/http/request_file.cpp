#include "server/http/request_file.hpp"

#include <vector>

#include "ingest/archive.hpp"

namespace perftriage::server {
namespace {

// The one file part of a multipart body (a lone part without a filename counts): views, not copies, so a part of a
// spooled body is read from the mapping.
Result<UploadedFile> multipart_file(const ApiRequest& req) {
  PT_ASSIGN(auto parts, ingest::parse_multipart_views(req.bytes(), req.header("content-type")));
  std::vector<ingest::MultipartPartView*> files;
  for (auto& p : parts) {
    if (!p.filename.empty()) files.push_back(&p);
  }
  if (files.empty() && parts.size() == 1) files.push_back(&parts.front());
  if (files.size() != 1) {
    return make_error(ErrorKind::invalid_input, "one_file_part",
                      "a multipart body must hold exactly one file part, found " + std::to_string(files.size()));
  }
  UploadedFile file;
  file.name = files.front()->filename;
  file.borrowed = files.front()->body;
  if (file.borrowed.empty()) {
    return make_error(ErrorKind::invalid_input, "empty_body", "the file part is empty", file.name);
  }
  return file;
}

}  // namespace

Result<UploadedFile> uploaded_file(const ApiRequest& req, const std::string& fallback_name) {
  if (req.bytes().empty()) {
    return make_error(ErrorKind::invalid_input, "empty_body",
                      "the request body is empty: send the trace or log as the body, or as one multipart file part");
  }
  UploadedFile file;
  if (media_type(req.header("content-type")) == "multipart/form-data") {
    PT_ASSIGN(file, multipart_file(req));
  } else {
    file.borrowed = req.bytes();
  }
  if (!req.q("name").empty()) file.name = req.q("name");
  if (file.name.empty()) file.name = fallback_name;
  PT_TRY(checked_file_name(file.name));
  return file;
}

}  // namespace perftriage::server
