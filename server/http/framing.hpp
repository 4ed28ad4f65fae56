#pragma once
// How a request's head frames its body, checked as RFC 9112 asks a server to (§6.1, §6.3, §3.2): a request whose
// framing two parties could read differently is refused (400) and its connection closed, since a proxy in front may
// have framed it otherwise; that disagreement is how request smuggling starts. Pure: the head's fields in, the
// refusal out.
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"

namespace perftriage::server {

// The head's fields as received: names as sent (any case), in order, repeated fields kept; views into the parser's
// buffer, valid while the head is.
using HeaderFields = std::vector<std::pair<std::string_view, std::string_view>>;

// The refusal (invalid_input, code "bad_framing" or "duplicate_header", 400) of a head that
//  - has Transfer-Encoding other than exactly `chunked`, or Transfer-Encoding on HTTP/1.0;
//  - has both Transfer-Encoding and Content-Length;
//  - has more than one Content-Length, or one that is not a decimal number;
//  - on HTTP/1.1, has no Host or more than one; on HTTP/1.0, more than one;
//  - has more than one Authorization (which one would authorize it?).
// nullopt for a head framed one way only. `version` is 10 or 11.
std::optional<Error> framing_error(unsigned version, const HeaderFields& fields);

}  // namespace perftriage::server
