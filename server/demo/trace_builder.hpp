#pragma once
// Synthetic Kineto (PyTorch profiler) traces for the demo data, the tests and the benchmarks: host ops, kernel
// launches with their device kernels and flow events, record_function ranges. The shapes follow the committed
// fixtures (tests/fixtures/trace/make_fixtures.py). Header-only, standard library and nlohmann::json only, so that
// tests and benchmarks use it without linking the demo library.
//
//   TraceBuilder t("NVIDIA A100-SXM4-40GB", /*xpu=*/false);
//   t.annotation("ProfilerStep#1", 3000);
//   t.cpu_op("aten::linear", 30);
//   t.kernel("ampere_sgemm_64x64_nn", 3.0);   // launch on the host, kernel on the device once it is free
//   std::string json = t.dump();
//
// A large trace is written piece by piece: head(), take_events() as often as wanted, then tail().
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace perftriage::server::demo {

class TraceBuilder {
 public:
  // `xpu`: XPU runtime launches (urEnqueueKernelLaunch...), else CUDA ones (cudaLaunchKernel, with stream and grid).
  TraceBuilder(std::string device_name, bool xpu, std::string trace_name = "demo",
               std::int64_t device_memory = 25769803776LL)
      : device_name_(std::move(device_name)),
        xpu_(xpu),
        trace_name_(std::move(trace_name)),
        device_memory_(device_memory) {}

  // Moves the host clock (microseconds) to `ts`: the next event starts there.
  TraceBuilder& at(double ts) {
    ts_ = ts;
    return *this;
  }

  // Extra args of every kernel event from now on (real traces carry occupancy, registers, ...).
  void kernel_args(nlohmann::json extra) { extra_kernel_args_ = std::move(extra); }

  // A host op of `dur` us; the host clock moves 1 us.
  void cpu_op(const std::string& name, double dur = 10.0) {
    host_event("cpu_op", name, dur);
    ts_ += 1.0;
  }

  // A launch call of `launch_dur` us on the host, then the kernel of `dur` us on the device, starting 2 us after the
  // launch returns or when the previous kernel ends; the host clock moves past the launch and `host_gap` more.
  void kernel(const std::string& name, double dur, double launch_dur = 5.0, double host_gap = 1.0) {
    ++corr_;
    ++ext_;
    ++kernels_;
    nlohmann::json rt_args{{"correlation", corr_}, {"External id", ext_}};
    if (!xpu_) rt_args["cbid"] = 211;
    add({{"ph", "X"},
         {"cat", xpu_ ? "xpu_runtime" : "cuda_runtime"},
         {"name", xpu_ ? "urEnqueueKernelLaunchWithArgsExp" : "cudaLaunchKernel"},
         {"pid", kPid},
         {"tid", kPid},
         {"ts", ts_},
         {"dur", launch_dur},
         {"args", rt_args}});
    const double start = std::max(ts_ + launch_dur + 2.0, gpu_free_);
    nlohmann::json k_args{{"correlation", corr_}, {"External id", ext_}, {"device", 0}};
    if (!xpu_) {
      k_args["stream"] = 7;
      k_args["grid"] = {128, 1, 1};
      k_args["block"] = {256, 1, 1};
    }
    if (extra_kernel_args_.is_object()) k_args.update(extra_kernel_args_);
    add({{"ph", "X"},
         {"cat", "kernel"},
         {"name", name},
         {"pid", 0},
         {"tid", 7},
         {"ts", start},
         {"dur", dur},
         {"args", k_args}});
    add({{"ph", "s"}, {"id", corr_}, {"pid", kPid}, {"tid", kPid}, {"ts", ts_}, {"cat", "ac2g"}, {"name", "ac2g"}});
    add({{"ph", "f"},
         {"id", corr_},
         {"pid", 0},
         {"tid", 7},
         {"ts", start},
         {"cat", "ac2g"},
         {"name", "ac2g"},
         {"bp", "e"}});
    gpu_free_ = start + dur;
    ts_ += launch_dur + host_gap;
  }

  // A record_function range (ProfilerStep#N, a region the harness marks) of `dur` us from the host clock, which
  // stays where it is.
  void annotation(const std::string& name, double dur) { host_event("user_annotation", name, dur); }

  [[nodiscard]] std::int64_t kernels() const { return kernels_; }

  // The whole trace, as one JSON object (keys in nlohmann's sorted order).
  [[nodiscard]] std::string dump() const { return head() + events_ + tail(); }

  // The trace up to and including its first event (the process name); events follow, each after a comma.
  [[nodiscard]] std::string head() const {
    const nlohmann::json device =
        nlohmann::json::array({{{"id", 0}, {"name", device_name_}, {"totalGlobalMem", device_memory_}}});
    const nlohmann::json process{{"name", "process_name"},      {"ph", "M"}, {"ts", 0}, {"pid", kPid}, {"tid", 0},
                                 {"args", {{"name", "python"}}}};
    return R"({"deviceProperties":)" + device.dump() + R"(,"displayTimeUnit":"ms","schemaVersion":1,"traceEvents":[)" +
           process.dump();
  }

  // The events added since the last call, as text (",{...},{...}"), given up by the builder.
  std::string take_events() { return std::exchange(events_, std::string()); }

  [[nodiscard]] std::string tail() const { return R"(],"traceName":)" + nlohmann::json(trace_name_).dump() + "}"; }

 private:
  // A complete ("X") event on the host thread at the host clock, tied to the current external id.
  void host_event(const char* category, const std::string& name, double dur) {
    add({{"ph", "X"},
         {"cat", category},
         {"name", name},
         {"pid", kPid},
         {"tid", kPid},
         {"ts", ts_},
         {"dur", dur},
         {"args", {{"External id", ext_}}}});
  }

  static constexpr int kPid = 4242;

  void add(const nlohmann::json& event) {
    events_ += ',';
    events_ += event.dump();
  }

  std::string device_name_;
  bool xpu_;
  std::string trace_name_;
  std::int64_t device_memory_;
  nlohmann::json extra_kernel_args_;
  std::string events_;
  double ts_ = 1000.0;
  double gpu_free_ = 0.0;
  int corr_ = 100;
  int ext_ = 1;
  std::int64_t kernels_ = 0;
};

}  // namespace perftriage::server::demo
