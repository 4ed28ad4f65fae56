// RFC 7578 multipart/form-data, binary-safe. CRLF line breaks per the RFC; bare LF is tolerated.
// Errors: code "bad_multipart" (kind invalid_input; unsupported_media_type when the Content-Type is not
// multipart/form-data at all); "too_many_parts" (kind too_large) when part max_parts + 1 begins: the parts past
// the limit are never read (100k parts used to cost 15 s and 606 MB).
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/strings.hpp"
#include "ingest/archive.hpp"
#include "ingest/csv_reader.hpp"

namespace perftriage::ingest {
namespace {

Error bad(std::string message, ErrorKind kind = ErrorKind::invalid_input) {
  return make_error(kind, "bad_multipart", std::move(message));
}

// Splits "a; b=c; d=\"e;f\"" on ';' outside quotes.
std::vector<std::string_view> split_params(std::string_view s) {
  std::vector<std::string_view> out;
  bool q = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (q && c == '\\') {
      ++i;
    } else if (c == '"') {
      q = !q;
    } else if (c == ';' && !q) {
      out.push_back(trim_if(s.substr(start, i - start), csv::is_pad));
      start = i + 1;
    }
  }
  out.push_back(trim_if(s.substr(start), csv::is_pad));
  return out;
}

// value of a parameter: quoted-string (backslash escapes) or token
std::string param_value(std::string_view v) {
  v = trim_if(v, csv::is_pad);
  if (v.size() >= 1 && v.front() == '"') {
    std::string out;
    for (std::size_t i = 1; i < v.size(); ++i) {
      if (v[i] == '\\' && i + 1 < v.size()) {
        out.push_back(v[++i]);
      } else if (v[i] == '"') {
        break;
      } else {
        out.push_back(v[i]);
      }
    }
    return out;
  }
  return std::string(v);
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// RFC 5987 ext-value: charset'lang'percent-encoded
std::string ext_value(std::string_view v) {
  const std::size_t q1 = v.find('\'');
  const std::size_t q2 = q1 == std::string_view::npos ? q1 : v.find('\'', q1 + 1);
  if (q2 != std::string_view::npos) v.remove_prefix(q2 + 1);
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '%' && i + 2 < v.size() && hex(v[i + 1]) >= 0 && hex(v[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(v[i + 1]) * 16 + hex(v[i + 2])));
      i += 2;
    } else {
      out.push_back(v[i]);
    }
  }
  return out;
}

struct Param {
  std::string_view key;
  std::string_view value;
};

std::vector<Param> params_of(std::string_view header_value, std::string_view& main_value) {
  std::vector<Param> out;
  auto parts = split_params(header_value);
  main_value = parts.empty() ? std::string_view() : parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t eq = parts[i].find('=');
    if (eq == std::string_view::npos) continue;
    out.push_back({trim_if(parts[i].substr(0, eq), csv::is_pad), trim_if(parts[i].substr(eq + 1), csv::is_pad)});
  }
  return out;
}

class Body {
 public:
  Body(std::string_view body, std::string delim) : b_(body), delim_(std::move(delim)) {}

  // Next delimiter line at or after `from`: at the start of a line, followed by "--" or blanks + line break.
  // Returns npos when there is none.
  std::size_t find_delim(std::size_t from, bool& closing) const {
    for (;;) {
      const std::size_t p = b_.find(delim_, from);
      if (p == std::string_view::npos) return p;
      if (p == 0 || b_[p - 1] == '\n') {
        std::size_t q = p + delim_.size();
        if (b_.substr(q, 2) == "--") {
          closing = true;
          return p;
        }
        while (q < b_.size() && csv::is_blank(b_[q])) ++q;
        if (b_.substr(q, 2) == "\r\n" || b_.substr(q, 1) == "\n") {
          closing = false;
          return p;
        }
      }
      from = p + 1;
    }
  }

  // Position after the line break that ends the delimiter line at p.
  std::size_t after_delim_line(std::size_t p) const {
    const std::size_t nl = b_.find('\n', p + delim_.size());
    return nl == std::string_view::npos ? b_.size() : nl + 1;
  }

  std::string_view b_;
  std::string delim_;
};

}  // namespace

Result<std::vector<MultipartPartView>> parse_multipart_views(std::string_view body, std::string_view content_type,
                                                             std::size_t max_parts) {
  std::string_view type;
  const auto ct_params = params_of(content_type, type);
  if (!iequals(trim_if(type, csv::is_pad), "multipart/form-data"))
    return bad(fmt::format("Content-Type '{}' is not multipart/form-data", std::string(type.substr(0, 80))),
               ErrorKind::unsupported_media_type);
  std::string boundary;
  for (const auto& p : ct_params)
    if (iequals(p.key, "boundary")) boundary = param_value(p.value);
  if (boundary.empty()) return bad("the multipart Content-Type has no boundary parameter");
  if (boundary.size() > 200) return bad("the multipart boundary is longer than 200 characters");

  Body b(body, "--" + boundary);
  bool closing = false;
  std::size_t d = b.find_delim(0, closing);
  if (d == std::string_view::npos) return bad("the multipart body has no boundary line");

  std::vector<MultipartPartView> parts;
  while (!closing) {
    if (parts.size() >= max_parts)
      return make_error(ErrorKind::too_large, "too_many_parts",
                        fmt::format("the multipart body has more than {} parts (the limit); send more files as one "
                                    "zip or tar.gz",
                                    max_parts));
    std::size_t pos = b.after_delim_line(d);
    MultipartPartView part;
    bool disposition = false;
    // headers
    for (;;) {
      if (pos >= body.size()) return bad("the multipart body ends inside the headers of a part");
      const std::size_t nl = body.find('\n', pos);
      if (nl == std::string_view::npos) return bad("the multipart body ends inside the headers of a part");
      std::string_view line = body.substr(pos, nl - pos);
      pos = nl + 1;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty()) break;
      const std::size_t colon = line.find(':');
      if (colon == std::string_view::npos)
        return bad(fmt::format("part {}: header line without ':'", parts.size() + 1));
      const std::string_view name = trim_if(line.substr(0, colon), csv::is_pad);
      const std::string_view value = trim_if(line.substr(colon + 1), csv::is_pad);
      if (iequals(name, "Content-Disposition")) {
        disposition = true;
        std::string_view main;
        std::string filename_ext;
        for (const auto& p : params_of(value, main)) {
          if (iequals(p.key, "name"))
            part.name = param_value(p.value);
          else if (iequals(p.key, "filename"))
            part.filename = param_value(p.value);
          else if (iequals(p.key, "filename*"))
            filename_ext = ext_value(param_value(p.value));
        }
        if (part.filename.empty()) part.filename = std::move(filename_ext);
      } else if (iequals(name, "Content-Type")) {
        part.content_type.assign(value);
      }
    }
    if (!disposition) return bad(fmt::format("part {} has no Content-Disposition header", parts.size() + 1));
    const std::size_t next = b.find_delim(pos, closing);
    if (next == std::string_view::npos)
      return bad(fmt::format("part {} ('{}') is not closed by a boundary line (truncated upload?)", parts.size() + 1,
                             part.name));
    // the line break before the delimiter belongs to the delimiter
    std::size_t end = next > pos ? next - 1 : pos;  // next - 1 is the '\n'
    if (end > pos && body[end - 1] == '\r') --end;
    part.body = body.substr(pos, end - pos);
    parts.push_back(std::move(part));
    d = next;
  }
  return parts;
}

Result<std::vector<MultipartPart>> parse_multipart(std::string_view body, std::string_view content_type,
                                                   std::size_t max_parts) {
  PT_ASSIGN(auto views, parse_multipart_views(body, content_type, max_parts));
  std::vector<MultipartPart> parts;
  parts.reserve(views.size());
  for (auto& v : views)
    parts.push_back(
        MultipartPart{std::move(v.name), std::move(v.filename), std::move(v.content_type), std::string(v.body)});
  return parts;
}

}  // namespace perftriage::ingest
