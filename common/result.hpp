#pragma once
// Errors are values: every fallible function returns Result<T>. The mapping from
// ErrorKind to an HTTP status lives in exactly one place (server/http/http_types.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace perftriage {

enum class ErrorKind {
  invalid_input,           // malformed request or file content -> 400
  unsupported_media_type,  // body type we cannot read -> 415
  unauthorized,            // bad signature / token -> 401
  forbidden,               // a valid token without the scope the endpoint needs -> 403
  not_found,               // unknown run, case, route -> 404
  conflict,                // different bytes for a stored path, platform mismatch -> 409
  too_large,               // body or archive over its limit -> 413
  unprocessable,           // well-formed but not what this endpoint takes -> 422
  too_many_requests,       // this client already has its share of work running; retry after Retry-After -> 429
  unavailable,             // the work queue is full; try again after Retry-After -> 503
  internal,                // a bug or an I/O failure on our side -> 500
};

struct Error {
  ErrorKind kind = ErrorKind::invalid_input;
  std::string code;       // machine-readable, specific: "bad_number", "no_header", ...
  std::string message;    // one sentence a person can act on
  std::string file;       // the input file as uploaded, when the error is about one
  std::int64_t line = 0;  // 1-based physical line, 0 = not about a line
  std::string column;     // header name of the offending field, when known
};

inline Error make_error(ErrorKind kind, std::string code, std::string message, std::string file = {},
                        std::int64_t line = 0, std::string column = {}) {
  return Error{kind, std::move(code), std::move(message), std::move(file), line, std::move(column)};
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

// Success builds nothing: the Error (four strings) exists only on failure. error() of a success is an empty Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  const Error& error() const& { return error_ ? *error_ : none(); }
  Error&& error() && {
    if (!error_) error_.emplace();
    return std::move(*error_);
  }

 private:
  static const Error& none() {
    static const Error empty{};
    return empty;
  }
  std::optional<Error> error_;
};

inline std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid_input: return "invalid_input";
    case ErrorKind::unsupported_media_type: return "unsupported_media_type";
    case ErrorKind::unauthorized: return "unauthorized";
    case ErrorKind::forbidden: return "forbidden";
    case ErrorKind::not_found: return "not_found";
    case ErrorKind::conflict: return "conflict";
    case ErrorKind::too_large: return "too_large";
    case ErrorKind::unprocessable: return "unprocessable";
    case ErrorKind::too_many_requests: return "too_many_requests";
    case ErrorKind::unavailable: return "unavailable";
    case ErrorKind::internal: return "internal";
  }
  return "internal";
}

}  // namespace perftriage

// Error propagation, so that a function body reads as its logic:
//   PT_TRY(schema::refresh_run_flags(db, id));       // Result<void> (or any Result): return its error, if any
//   PT_ASSIGN(auto run, schema::find_run(db, key));  // Result<T>: return its error, or move its value into `run`
// Both work in any function returning Result<U> (an Error converts to every Result).
#define PT_TRY(expr)                                               \
  do {                                                             \
    auto pt_try_result_ = (expr);                                  \
    if (!pt_try_result_) return std::move(pt_try_result_).error(); \
  } while (0)

#define PT_CONCAT_IMPL_(a, b) a##b
#define PT_CONCAT_(a, b) PT_CONCAT_IMPL_(a, b)
#define PT_ASSIGN_IMPL_(tmp, lhs, expr)    \
  auto tmp = (expr);                       \
  if (!tmp) return std::move(tmp).error(); \
  lhs = std::move(tmp).value()
#define PT_ASSIGN(lhs, expr) PT_ASSIGN_IMPL_(PT_CONCAT_(pt_assign_result_, __LINE__), lhs, expr)
