#pragma once
// A byte buffer with simdjson padding after its end, allocated without zeroing.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string_view>

namespace perftriage::analyzers::trace {

inline constexpr std::size_t kPadding = 64;  // >= SIMDJSON_PADDING

class PaddedBuffer {
 public:
  PaddedBuffer() = default;
  // Capacity for `n` bytes plus padding; contents undefined. Returns false when out of memory.
  bool allocate(std::size_t n);
  // Grow keeping contents (realloc); returns false when out of memory.
  bool grow(std::size_t n);
  void set_size(std::size_t n) { size_ = n; }
  [[nodiscard]] char* data() { return data_.get(); }
  [[nodiscard]] const char* data() const { return data_.get(); }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t capacity() const { return capacity_; }  // usable bytes, padding excluded
  [[nodiscard]] std::string_view view() const { return {data_.get(), size_}; }

 private:
  struct Free {
    void operator()(char* p) const { std::free(p); }  // NOLINT(cppcoreguidelines-no-malloc)
  };
  std::unique_ptr<char, Free> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace perftriage::analyzers::trace
