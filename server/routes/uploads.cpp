// POST /api/v1/uploads: one CSV, a multipart batch, or a zip / tar.gz; axes and run in the query
// or in a JSON part named `meta`. Parsing the request is here; everything else is ingest_files().
#include <algorithm>

#include "common/strings.hpp"
#include "ingest/archive.hpp"
#include "server/app/app_context.hpp"
#include "server/app/ingest_service.hpp"
#include "server/app/queries.hpp"
#include "server/bot/upload_check.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

bool is_true(const std::string& v) { return v == "true" || v == "1" || v == "yes"; }

Result<UploadMeta> meta_from_query(const ApiRequest& req, const Settings& settings) {
  UploadMeta meta;
  meta.run = req.q("run");
  meta.platform = req.q("platform");
  meta.device = req.q("device");
  meta.torch_version = req.q("torch_version");
  meta.commit = req.q("commit");
  meta.created_at = req.q("created_at");
  meta.axes = {req.q("suite"), req.q("dtype"), req.q("mode"), req.q("kind"), req.q("device"), req.q("config")};
  meta.tags = split(req.q("tags"), ',', EmptyParts::skip);
  meta.replace = is_true(req.q("replace"));
  meta.repo = req.q("repo");
  meta.pull_request = req.q("pr");
  meta.baseline = req.q("baseline");
  PT_ASSIGN(meta.threshold, parse_threshold(req.q("threshold"), settings.slow_threshold));
  return meta;
}

// The files borrow their bytes from the request body, in memory or spooled and mapped (no copy of an upload of
// hundreds of MB): `req` outlives ingest_files().
Result<std::vector<ingest::InputFile>> files_from_request(const ApiRequest& req, UploadMeta& meta,
                                                          const ingest::UnpackLimits& limits) {
  const std::string type = media_type(req.header("content-type"));
  if (req.bytes().empty()) {
    return make_error(ErrorKind::invalid_input, "empty_body",
                      "the request body is empty: send a CSV, a multipart "
                      "form with one part per file, or a zip / tar.gz");
  }
  if (type == "multipart/form-data") {
    PT_ASSIGN(auto parts, ingest::parse_multipart_views(req.bytes(), req.header("content-type"), limits.max_parts));
    std::vector<ingest::InputFile> files;
    for (auto& part : parts) {
      if (part.name == "meta" && part.filename.empty()) {
        PT_TRY(merge_meta_json(meta, part.body));
        continue;
      }
      std::string path = !part.filename.empty() ? part.filename : part.name;
      files.push_back({std::move(path), {}, part.body});
    }
    return files;
  }
  const std::string path = req.q("path");
  if (type == "text/csv" || type == "text/plain" || type == "application/csv") {
    return std::vector<ingest::InputFile>{{path.empty() ? "upload.csv" : path, {}, req.bytes()}};
  }
  if (type == "application/zip" || type == "application/x-zip-compressed" || type == "application/gzip" ||
      type == "application/x-gzip" || type == "application/x-tar" || type == "application/x-gtar" ||
      type == "application/octet-stream") {
    if (ingest::detect_archive(req.bytes()) == ingest::ArchiveType::none) {
      return make_error(ErrorKind::invalid_input, "bad_archive",
                        "Content-Type " + type + " but the body is not a zip, tar or gzip archive",
                        path.empty() ? "upload" : path);
    }
    return std::vector<ingest::InputFile>{{path.empty() ? "upload" : path, {}, req.bytes()}};
  }
  return make_error(ErrorKind::unsupported_media_type, "unsupported_content_type",
                    "Content-Type '" + (type.empty() ? std::string("(none)") : type) +
                        "' is not accepted; use text/csv, multipart/form-data, application/zip or application/gzip");
}

Result<ApiResponse> post_upload(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(auto meta, meta_from_query(req, app.settings()));
  PT_ASSIGN(auto files, files_from_request(req, meta, app.settings().unpack));
  if (meta.replace && !is_true(req.q("replace"))) {
    // Replacing needs admin, decided from the query before the body is read (register_upload_routes): a `meta` part
    // cannot ask for it on its own.
    return make_error(ErrorKind::forbidden, "replace_needs_query",
                      "\"replace\": true in the meta part needs replace=true in the query as well "
                      "(and a token with scope 'admin')",
                      "meta", 0, "replace");
  }
  PT_ASSIGN(const auto check, upload_check_request(meta));  // a bad repo / pr / commit is refused before storing
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto summary, ingest_files(*store, meta, std::move(files), app.settings().unpack));
  std::int64_t rows = 0;
  for (const auto& f : summary.files)
    if (f.status != FileStatus::duplicate) rows += f.rows;
  app.obs().rows_ingested(rows);
  auto body = to_json(summary);
  // The run is stored whatever happens to its check: a failure to queue it is said in the answer, not as an error
  // that would make CI upload the same files again.
  if (check) body["check"] = queue_upload_check(app, *store, summary.run, *check);
  return json_response(summary.stored_anything() ? 201 : 200, body);
}

// A refused upload is counted by its error code (perftriage_uploads_refused_total{reason}).
Result<ApiResponse> post_upload_counted(const ApiRequest& req, AppContext& app) {
  auto answer = post_upload(req, app);
  if (!answer) app.obs().upload_refused(answer.error().code);
  return answer;
}

}  // namespace

void register_upload_routes(Router& router) {
  auto options = RouteOptions::on(Lane::heavy, 0)
                     .require(Scope::upload)
                     .accept({"text/csv", "text/plain", "application/csv", "multipart/form-data", "application/zip",
                              "application/x-zip-compressed", "application/gzip", "application/x-gzip",
                              "application/x-tar", "application/x-gtar", "application/octet-stream"});
  // Superseding stored bytes (replace=true) is an admin's decision.
  options.scope_for = [](const ApiRequest& head) { return is_true(head.q("replace")) ? Scope::admin : Scope::upload; };
  options.params({"run", "platform", "device", "torch_version", "commit", "created_at", "tags", "suite", "dtype",
                  "mode", "kind", "config", "replace", "path", "threshold", "repo", "pr", "baseline"});
  router.add("POST", "/api/v1/uploads", post_upload_counted, std::move(options));
}

}  // namespace perftriage::server
