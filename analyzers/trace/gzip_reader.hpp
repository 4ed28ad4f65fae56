#pragma once
// gzip detection and inflation into one padded buffer sized from the ISIZE trailer when plausible.
#include <string_view>

#include "analyzers/trace/buffer.hpp"
#include "analyzers/trace/classify.hpp"
#include "common/result.hpp"

namespace perftriage::analyzers::trace {

[[nodiscard]] bool is_gzip(std::string_view bytes);

// Inflates every gzip member. Refuses (too_large, "gzip_bomb") past options.max_decompressed_bytes, or once
// options.ratio_check_min_bytes are out past options.max_gzip_ratio times the compressed bytes consumed so far: both
// judged while inflating, at least every MiB of output, so a bomb is refused having produced a few MiB. The message
// says how many bytes were inflated from how many. (unprocessable, "bad_gzip") for corrupt or truncated streams.
Result<PaddedBuffer> gunzip(std::string_view compressed, std::string_view file_name, const ClassifyOptions& options);

}  // namespace perftriage::analyzers::trace
