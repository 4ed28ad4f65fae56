#include "analyzers/trace/buffer.hpp"

#include <cstring>

namespace perftriage::analyzers::trace {

bool PaddedBuffer::allocate(std::size_t n) {
  data_.reset(static_cast<char*>(std::malloc(n + kPadding)));  // NOLINT(cppcoreguidelines-no-malloc)
  if (!data_) {
    capacity_ = size_ = 0;
    return false;
  }
  capacity_ = n;
  size_ = 0;
  std::memset(data_.get() + n, 0, kPadding);
  return true;
}

bool PaddedBuffer::grow(std::size_t n) {
  if (n <= capacity_) return true;
  char* p = static_cast<char*>(std::realloc(data_.get(), n + kPadding));  // NOLINT(cppcoreguidelines-no-malloc)
  if (p == nullptr) return false;
  (void)data_.release();
  data_.reset(p);
  capacity_ = n;
  std::memset(p + n, 0, kPadding);
  return true;
}

}  // namespace perftriage::analyzers::trace
