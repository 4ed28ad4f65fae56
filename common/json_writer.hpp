#pragma once
// Compact JSON written straight into a string, for large API bodies where building an nlohmann::json document first
// would cost more than the answer itself. The text is byte for byte what dump_json (json_text.hpp) writes for the
// same document, so a writer-built body and a dumped one are interchangeable:
//   - strings: `"` `\` \b \f \n \r \t escaped by name, other control characters as \u00xx, everything else (UTF-8,
//     DEL, '/') as is; a string that is not valid UTF-8 is written as dump_json writes it (each bad sequence becomes
//     U+FFFD);
//   - doubles: nlohmann's own shortest round-trip formatting ("1.0", "1e-05", "1.5e+16"); NaN and infinities
//     are written as null;
//   - objects: keys in the order they are written. nlohmann::json sorts them (byte order), so a caller that must
//     match a dumped document writes its keys in that order.
// Commas are placed by the writer: key() before each member, then exactly one value, array or object.
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace perftriage {

// True when `s` is UTF-8 as RFC 3629 defines it (no overlong forms, no surrogates, nothing above U+10FFFF): the
// strings nlohmann::json dumps unchanged.
inline bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const auto cont = [&](std::size_t k) { return k < n && (byte(k) & 0xC0U) == 0x80U; };
  while (i < n) {
    const unsigned char c = byte(i);
    if (c < 0x80U) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80U, hi = 0xBFU;  // the allowed range of the second byte
    if (c >= 0xC2U && c <= 0xDFU) {
      len = 2;
    } else if (c >= 0xE0U && c <= 0xEFU) {
      len = 3;
      if (c == 0xE0U) lo = 0xA0U;  // overlong
      if (c == 0xEDU) hi = 0x9FU;  // surrogates
    } else if (c >= 0xF0U && c <= 0xF4U) {
      len = 4;
      if (c == 0xF0U) lo = 0x90U;  // overlong
      if (c == 0xF4U) hi = 0x8FU;  // above U+10FFFF
    } else {
      return false;
    }
    if (i + 1 >= n || byte(i + 1) < lo || byte(i + 1) > hi) return false;
    for (std::size_t k = 2; k < len; ++k) {
      if (!cont(i + k)) return false;
    }
    i += len;
  }
  return true;
}

class JsonWriter {
 public:
  explicit JsonWriter(std::size_t reserve = 0) { out_.reserve(reserve); }

  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }

  // A member's name; its value follows.
  JsonWriter& key(std::string_view name) {
    separate();
    quoted(name);
    out_ += ':';
    return *this;
  }

  JsonWriter& string(std::string_view s) {
    separate();
    quoted(s);
    return done();
  }
  JsonWriter& number(double v) {
    separate();
    if (!std::isfinite(v)) {
      out_ += "null";
    } else {
      char buf[64];
      const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
      out_.append(buf, static_cast<std::size_t>(end - buf));
    }
    return done();
  }
  JsonWriter& number(const std::optional<double>& v) { return v ? number(*v) : null(); }
  JsonWriter& integer(std::int64_t v) {
    separate();
    char buf[24];
    const char* end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    out_.append(buf, static_cast<std::size_t>(end - buf));
    return done();
  }
  JsonWriter& boolean(bool v) {
    separate();
    out_ += v ? "true" : "false";
    return done();
  }
  JsonWriter& null() {
    separate();
    out_ += "null";
    return done();
  }

  // key(name) and one value, for the common case.
  template <typename Value>
  JsonWriter& member(std::string_view name, Value&& value) {
    key(name);
    return put(std::forward<Value>(value));
  }

  [[nodiscard]] const std::string& text() const { return out_; }
  [[nodiscard]] std::string take() { return std::move(out_); }

 private:
  JsonWriter& put(std::string_view s) { return string(s); }
  JsonWriter& put(const std::string& s) { return string(s); }
  JsonWriter& put(const char* s) { return string(s); }
  JsonWriter& put(double v) { return number(v); }
  JsonWriter& put(const std::optional<double>& v) { return number(v); }
  JsonWriter& put(std::int64_t v) { return integer(v); }
  JsonWriter& put(bool v) { return boolean(v); }
  JsonWriter& put(std::nullptr_t) { return null(); }

  JsonWriter& open(char bracket) {
    separate();
    out_ += bracket;
    return *this;
  }
  JsonWriter& close(char bracket) {
    out_ += bracket;
    return done();
  }
  // A comma before a value that follows another one in the same array or object; none after a key or a bracket.
  void separate() {
    if (after_value_) out_ += ',';
    after_value_ = false;
  }
  JsonWriter& done() {
    after_value_ = true;
    return *this;
  }

  // Per byte: kEscape when a JSON string cannot hold it as it is (control characters, '"', '\\'), kNonAscii from
  // 0x80 up. One table lookup per byte and no branch: the scan is most of the cost of a large body's strings.
  static constexpr unsigned char kEscape = 1U, kNonAscii = 2U;
  static constexpr std::array<unsigned char, 256> kByteClass = [] {
    std::array<unsigned char, 256> t{};
    for (unsigned c = 0; c < 0x20U; ++c) t[c] = kEscape;
    t['"'] = t['\\'] = kEscape;
    for (unsigned c = 0x80U; c < 256U; ++c) t[c] = kNonAscii;
    return t;
  }();

  void quoted(std::string_view s) {
    unsigned char seen = 0;
    for (const char ch : s) seen |= kByteClass[static_cast<unsigned char>(ch)];
    const bool plain = (seen & kEscape) == 0;  // nothing to escape
    if ((seen & kNonAscii) != 0 && !valid_utf8(s)) {
      // Rare (a name from outside): nlohmann's own replacement rules, exactly.
      out_ += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return;
    }
    out_ += '"';
    if (plain) {
      out_ += s;
    } else {
      escaped(s);
    }
    out_ += '"';
  }
  void escaped(std::string_view s) {
    std::size_t run = 0;  // start of the bytes not yet copied
    for (std::size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x20U && c != '"' && c != '\\') continue;
      out_.append(s.data() + run, i - run);
      run = i + 1;
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\b': out_ += "\\b"; break;
        case '\f': out_ += "\\f"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default: {
          static constexpr char hex[] = "0123456789abcdef";
          const char u[] = {'\\', 'u', '0', '0', hex[c >> 4U], hex[c & 0xFU]};
          out_.append(u, sizeof u);
        }
      }
    }
    out_.append(s.data() + run, s.size() - run);
  }

  std::string out_;
  bool after_value_ = false;
};

}  // namespace perftriage
