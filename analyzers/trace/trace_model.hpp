#pragma once
// What the trace scanner keeps from a Kineto / Chrome trace: compact device activities and launch calls,
// plus counters. Everything the classifiers need, nothing else.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace perftriage::analyzers::trace {

enum class ActivityKind : std::uint8_t { kernel, memcpy, memset };

struct DeviceActivity {
  double ts = 0;   // µs
  double dur = 0;  // µs
  std::uint64_t correlation = 0;
  std::uint32_t name_id = 0;  // index into TraceModel::names
  ActivityKind kind = ActivityKind::kernel;
  bool has_correlation = false;
};

struct LaunchCall {  // runtime/driver call that launches a kernel (cudaLaunchKernel, hipModuleLaunchKernel,
                     // urEnqueueKernelLaunch...)
  double ts = 0;
  double dur = 0;
  std::uint64_t correlation = 0;
  bool has_correlation = false;
};

// A record_function range on the host timeline (cat user_annotation): ProfilerStep#N, or the
// harness's own regions. Kernels are attributed to the innermost region around their launch.
struct Region {
  double ts = 0;
  double dur = 0;
  std::uint32_t name_id = 0;  // index into TraceModel::names
};
inline constexpr std::size_t kMaxRegions = 100'000;  // bounds memory on pathological traces

struct TraceCounters {
  std::int64_t events = 0;
  std::int64_t cpu_ops = 0;
  std::int64_t runtime_calls = 0;
  std::int64_t python_functions = 0;
  std::int64_t user_annotations = 0;
  std::int64_t profiler_steps = 0;        // user_annotation ProfilerStep#N
  std::int64_t compiled_graph_calls = 0;  // user_annotation "## Call CompiledFxGraph <hash> ##"
  std::int64_t compiled_regions = 0;      // cpu_op "Torch-Compiled Region"
  std::int64_t legacy_events = 0;         // Kernel / Runtime / Operator / Memcpy / Memset categories
  std::int64_t events_with_ph = 0;
};

struct TraceModel {
  std::string kind;  // "kineto" | "kineto_legacy" | "event_array"
  std::vector<std::string> names;
  std::vector<DeviceActivity> device;
  std::vector<LaunchCall> launches;
  std::vector<Region> regions;
  std::map<std::string, std::int64_t, std::less<>> attention_ops;  // aten ops that decide attention, by name
  std::map<std::string, std::int64_t, std::less<>> categories;     // event count per cat
  TraceCounters counters;
  std::vector<std::string> device_names;  // deviceProperties[].name
  std::int64_t schema_version = -1;
};

}  // namespace perftriage::analyzers::trace
