#pragma once
// Kineto / Chrome trace scanner: simdjson On Demand over the buffer, one bounded chunk of events at a time
// (the parser's index never grows past ClassifyOptions::chunk_bytes), no DOM of the events.
#include <string_view>

#include "analyzers/trace/buffer.hpp"
#include "analyzers/trace/classify.hpp"
#include "analyzers/trace/trace_model.hpp"
#include "common/result.hpp"

namespace perftriage::analyzers::trace {

// `json` must start (after whitespace) with '{' or '['. The buffer is modified temporarily (two bytes per chunk)
// and restored before return.
Result<TraceModel> scan_trace(PaddedBuffer& json, std::string_view file_name, const ClassifyOptions& options);

}  // namespace perftriage::analyzers::trace
