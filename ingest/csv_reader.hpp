#pragma once
// Private to ingest/: a small RFC 4180 record reader and field splitter over string_view.
// No allocation per cell: unquoted cells are views into the input; quoted cells are views into the input
// too unless they contain doubled quotes, in which case they are unescaped into a per-record scratch buffer
// whose capacity is reserved up front (so earlier views stay valid).
//
// Leniency (never crash, never loop): a quote in the middle of an unquoted cell is kept literally; text after
// a closing quote is appended to the cell; a quote left open at end of input is reported (unterminated).
//
// Bounds (CellLimits): at most `max_cells` cells of a record are materialised as views; the rest of the record is
// still scanned (to find its end) and summarised in the Record (how many cells, how many of the dropped ones were
// not empty, the first cell longer than `max_cell_bytes`). A line of ten million commas thus costs one scan and a
// counter, not ten million views. The defaults bound nothing.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "common/strings.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perftriage::ingest::csv {

inline constexpr std::size_t kNoCell = std::numeric_limits<std::size_t>::max();

struct CellLimits {
  std::size_t max_cells = kNoCell;       // cells materialised per record; the others are only counted
  std::size_t max_cell_bytes = kNoCell;  // a (trimmed / unescaped) cell longer than this is reported in the Record
};

struct Record {
  std::string_view text;            // without its line terminator; may span lines when a quoted cell holds '\n'
  std::int64_t line = 0;            // 1-based physical line of its first character
  bool has_quote = false;           // whether `text` contains '"' (the splitter then takes the slow path)
  bool unterminated_quote = false;  // a quoted cell was still open at end of input
  // Filled by split() / next_split():
  std::size_t cells_total = 0;        // cells in the record, materialised or not
  std::size_t overflow_nonempty = 0;  // non-empty cells past CellLimits::max_cells (not materialised)
  std::size_t long_cell = kNoCell;    // 0-based position of the first cell longer than max_cell_bytes
  std::size_t long_cell_bytes = 0;    // its length

  void begin_cells() {
    cells_total = 0;
    overflow_nonempty = 0;
    long_cell = kNoCell;
    long_cell_bytes = 0;
  }
  // Appends one (already trimmed) cell, or counts it when the record already has max_cells of them.
  void add_cell(std::vector<std::string_view>& cells, std::string_view cell, const CellLimits& lim) {
    const std::size_t pos = cells_total++;
    if (cell.size() > lim.max_cell_bytes && long_cell == kNoCell) {
      long_cell = pos;
      long_cell_bytes = cell.size();
    }
    if (cells.size() < lim.max_cells) {
      cells.push_back(cell);
    } else if (!cell.empty()) {
      ++overflow_nonempty;
    }
  }
};

inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

// What is stripped around an unquoted cell: blanks and a stray '\r'.
inline bool is_pad(char c) { return is_blank(c) || c == '\r'; }

// A header cell without the '#' of a commented-out header line ("#name" -> "name") and without padding.
inline std::string_view strip_hash(std::string_view cell) {
  while (!cell.empty() && cell.front() == '#') cell.remove_prefix(1);
  return trim_if(cell, is_pad);
}

inline void split(Record& rec, std::vector<std::string_view>& cells, std::string& scratch,
                  const CellLimits& lim = {});  // below

// Splits bytes into records (physical lines, joined while a quoted cell is open). Strips a UTF-8 BOM,
// the '\n' terminator and a trailing '\r'.
class RecordReader {
 public:
  explicit RecordReader(std::string_view data, CellLimits limits = {}) : data_(data), limits_(limits) {
    if (data_.size() >= 3 && data_.substr(0, 3) == "\xEF\xBB\xBF") data_.remove_prefix(3);
  }

  // Where the next record starts (an offset into the data after a BOM), and its line: seek() comes back there.
  [[nodiscard]] std::size_t pos() const noexcept { return pos_; }
  [[nodiscard]] std::int64_t line() const noexcept { return line_; }
  void seek(std::size_t pos, std::int64_t line) noexcept {
    pos_ = pos < data_.size() ? pos : data_.size();
    line_ = line;
  }

  bool next(Record& r) {
    if (pos_ >= data_.size()) return false;
    const char* base = data_.data();
    const std::size_t size = data_.size();
    const std::size_t start = pos_;
    r.line = line_;
    r.unterminated_quote = false;
    const void* nl = std::memchr(base + start, '\n', size - start);
    std::size_t end = nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - base) : size;
    r.has_quote = std::memchr(base + start, '"', end - start) != nullptr;
    if (r.has_quote) end = scan_quoted(start, r);
    pos_ = end < size ? end + 1 : size;
    ++line_;
    std::string_view text = data_.substr(start, end - start);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    r.text = text;
    return true;
  }

  // next() and split() fused: one pass over the bytes finds commas and the line end (16 bytes at a time with
  // SSE2); a record holding a quote falls back to next() + split().
  bool next_split(Record& r, std::vector<std::string_view>& cells, std::string& scratch) {
    if (pos_ >= data_.size()) return false;
    const char* base = data_.data();
    const std::size_t size = data_.size();
    const std::size_t start = pos_;
    cells.clear();
    r.begin_cells();
    std::size_t cell_start = start;
    std::size_t i = start;
    std::size_t end = size;
#if defined(__SSE2__)
    const __m128i comma = _mm_set1_epi8(',');
    const __m128i newline = _mm_set1_epi8('\n');
    const __m128i quote = _mm_set1_epi8('"');
    for (; i + 16 <= size; i += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + i));
      auto mask = static_cast<unsigned>(_mm_movemask_epi8(
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, newline)), _mm_cmpeq_epi8(v, quote))));
      while (mask != 0) {
        const std::size_t j = i + static_cast<std::size_t>(__builtin_ctz(mask));
        const char c = base[j];
        if (c == ',') {
          r.add_cell(cells, trim_if(std::string_view(base + cell_start, j - cell_start), is_pad), limits_);
          cell_start = j + 1;
        } else if (c == '\n') {
          end = j;
          goto done;
        } else {
          goto slow;
        }
        mask &= mask - 1;
      }
    }
#endif
    for (; i < size; ++i) {
      const char c = base[i];
      if (c == ',') {
        r.add_cell(cells, trim_if(std::string_view(base + cell_start, i - cell_start), is_pad), limits_);
        cell_start = i + 1;
      } else if (c == '\n') {
        end = i;
        goto done;
      } else if (c == '"') {
        goto slow;
      }
    }
  done : {
    r.add_cell(cells, trim_if(std::string_view(base + cell_start, end - cell_start), is_pad), limits_);
    r.line = line_;
    r.has_quote = false;
    r.unterminated_quote = false;
    std::string_view text(base + start, end - start);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    r.text = text;
    pos_ = end < size ? end + 1 : size;
    ++line_;
    return true;
  }
  slow:
    if (!next(r)) return false;
    split(r, cells, scratch, limits_);
    return true;
  }

 private:
  // Finds the end of a record that contains a quote, honouring quoted cells that span lines.
  std::size_t scan_quoted(std::size_t start, Record& r) {
    enum State { field_start, unquoted, quoted, quote_in_quoted };
    State st = field_start;
    const std::size_t size = data_.size();
    for (std::size_t i = start; i < size; ++i) {
      const char c = data_[i];
      switch (st) {
        case field_start:
          if (c == '"')
            st = quoted;
          else if (c == '\n')
            return i;
          else if (c != ',')
            st = unquoted;
          break;
        case unquoted:
          if (c == ',')
            st = field_start;
          else if (c == '\n')
            return i;
          break;
        case quoted:
          if (c == '"')
            st = quote_in_quoted;
          else if (c == '\n')
            ++line_;
          break;
        case quote_in_quoted:
          if (c == '"')
            st = quoted;
          else if (c == ',')
            st = field_start;
          else if (c == '\n')
            return i;
          else
            st = unquoted;
          break;
      }
    }
    if (st == quoted) r.unterminated_quote = true;
    return size;
  }

  std::string_view data_;
  CellLimits limits_;
  std::size_t pos_ = 0;
  std::int64_t line_ = 1;
};

// Splits one record into cells (trimmed of spaces/tabs when unquoted). `cells` and `scratch` are reused
// between calls; views into `scratch` are valid until the next call. The cell summary of `rec` is refilled.
inline void split(Record& rec, std::vector<std::string_view>& cells, std::string& scratch, const CellLimits& lim) {
  cells.clear();
  rec.begin_cells();
  std::string_view s = rec.text;
  if (!rec.has_quote) {
    std::size_t pos = 0;
    for (;;) {
      const void* comma = std::memchr(s.data() + pos, ',', s.size() - pos);
      if (comma == nullptr) {
        rec.add_cell(cells, trim_if(s.substr(pos), is_pad), lim);
        return;
      }
      const auto at = static_cast<std::size_t>(static_cast<const char*>(comma) - s.data());
      rec.add_cell(cells, trim_if(s.substr(pos, at - pos), is_pad), lim);
      pos = at + 1;
    }
  }
  // Slow path: at least one quote somewhere in the record.
  scratch.clear();
  scratch.reserve(s.size());  // unescaped text is never longer than the record: views below stay valid
  std::size_t i = 0;
  const std::size_t n = s.size();
  for (;;) {
    // at a field start
    std::size_t j = i;
    while (j < n && is_blank(s[j])) ++j;
    if (j < n && s[j] == '"') {
      // quoted cell: copy unescaped content into scratch
      const std::size_t out_begin = scratch.size();
      std::size_t k = j + 1;
      bool closed = false;
      while (k < n) {
        const char c = s[k];
        if (c == '"') {
          if (k + 1 < n && s[k + 1] == '"') {
            scratch.push_back('"');
            k += 2;
            continue;
          }
          closed = true;
          ++k;
          break;
        }
        scratch.push_back(c);
        ++k;
      }
      // lenient: text after the closing quote up to the next comma is appended (minus trailing blanks)
      if (closed) {
        std::size_t tail_end = k;
        while (tail_end < n && s[tail_end] != ',') ++tail_end;
        std::string_view tail = s.substr(k, tail_end - k);
        while (!tail.empty() && is_pad(tail.back())) tail.remove_suffix(1);
        scratch.append(tail);
        k = tail_end;
      }
      rec.add_cell(cells, std::string_view(scratch.data() + out_begin, scratch.size() - out_begin), lim);
      if (k >= n) return;
      i = k + 1;  // skip the comma
      continue;
    }
    const std::size_t comma = s.find(',', i);
    if (comma == std::string_view::npos) {
      rec.add_cell(cells, trim_if(s.substr(i), is_pad), lim);
      return;
    }
    rec.add_cell(cells, trim_if(s.substr(i, comma - i), is_pad), lim);
    i = comma + 1;
  }
}

// Number parsing: locale-free std::from_chars over the whole (trimmed) cell.
enum class NumStatus { ok, bad };

// Empty cell -> nullopt. "nan" / "inf" (any case, signed) are accepted and stored as nullopt: the harness
// writes them when a ratio cannot be computed, which means "no value", not a parse error.
inline NumStatus parse_double(std::string_view s, std::optional<double>& out) {
  // Fast path (Clinger): "[-]digits[.digits]" with at most 15 significant digits is m / 10^k with m and 10^k
  // exact doubles, so one IEEE division gives the correctly rounded value, the same as from_chars.
  if (!s.empty() && s.size() <= 17) {
    static constexpr double kPow10[] = {1e0, 1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7, 1e8,
                                        1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16};
    std::size_t i = s[0] == '-' ? 1 : 0;
    const bool neg = i == 1;
    std::uint64_t m = 0;
    std::size_t digits = 0;
    std::size_t frac = 0;
    bool dot = false;
    bool ok = i < s.size();
    for (; ok && i < s.size(); ++i) {
      const auto d = static_cast<unsigned>(static_cast<unsigned char>(s[i]) - '0');
      if (d <= 9) {
        m = m * 10 + d;
        ++digits;
        frac += dot ? 1 : 0;
      } else if (s[i] == '.' && !dot) {
        dot = true;
      } else {
        ok = false;
      }
    }
    if (ok && digits > 0 && digits <= 15) {
      const double v = static_cast<double>(m) / kPow10[frac];
      out = neg ? -v : v;
      return NumStatus::ok;
    }
  }
  s = trim_if(s, is_pad);
  out.reset();
  if (s.empty()) return NumStatus::ok;
  if (s.front() == '+') s.remove_prefix(1);
  double v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec == std::errc::result_out_of_range && p == end) return NumStatus::ok;  // denormal/huge: no value
  if (ec != std::errc() || p != end) return NumStatus::bad;
  if (std::isfinite(v)) out = v;
  return NumStatus::ok;
}

// Integers; an integral float ("16.0") is accepted, "nan" gives nullopt like parse_double.
inline NumStatus parse_int(std::string_view s, std::optional<std::int64_t>& out) {
  // fast path: 1..18 plain digits (the common case: "0", "1", "545")
  if (!s.empty() && s.size() <= 18) {
    std::int64_t v = 0;
    std::size_t i = 0;
    for (; i < s.size(); ++i) {
      const auto d = static_cast<unsigned>(static_cast<unsigned char>(s[i]) - '0');
      if (d > 9) break;
      v = v * 10 + static_cast<std::int64_t>(d);
    }
    if (i == s.size()) {
      out = v;
      return NumStatus::ok;
    }
  }
  s = trim_if(s, is_pad);
  out.reset();
  if (s.empty()) return NumStatus::ok;
  if (s.front() == '+') s.remove_prefix(1);
  std::int64_t v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec == std::errc() && p == end) {
    out = v;
    return NumStatus::ok;
  }
  std::optional<double> d;
  if (parse_double(s, d) != NumStatus::ok) return NumStatus::bad;
  if (!d) {
    // nan/inf or empty after sign: only a real "nan"/"inf" spelling gets here (from_chars accepted it)
    return NumStatus::ok;
  }
  if (*d != std::floor(*d) || *d < -9.0e18 || *d > 9.0e18) return NumStatus::bad;
  out = static_cast<std::int64_t>(*d);
  return NumStatus::ok;
}

}  // namespace perftriage::ingest::csv
