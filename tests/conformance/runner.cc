#include "runner.h"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <utility>

#include "core/eval/interpreter.h"
#include "core/ir/bind.h"
#include "core/parse/parse.h"
#include "jit/io_binding.h"
#include "support/tensors.h"
#include "unsupported.h"

namespace plaidml::conformance {

namespace {

using NamedBuffers = std::vector<std::pair<std::string, std::shared_ptr<jit::Buffer>>>;

// FNV-1a over the case name, then the shape set and input positions: a stable seed per input.
uint64_t seed_of(const std::string& name, size_t set, size_t input, uint64_t salt) {
  uint64_t h = 1469598103934665603ull ^ (salt * 0x9E3779B97F4A7C15ull);
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ull;
  h = (h ^ set) * 1099511628211ull;
  return (h ^ (input + 0x9e37)) * 1099511628211ull;
}

template <typename T>
const T& per_input(const std::vector<T>& v, size_t i) {
  return v.size() == 1 ? v[0] : v.at(i);
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// The backend of a device id, "opencl" for "opencl:0": what names its unsupported list. Not
// DeviceDescription::kind, which is the hardware type ("cpu" for PoCL's OpenCL device too).
std::string backend_of(const std::string& id) { return id.substr(0, id.find(':')); }

std::string known_ids(const std::vector<jit::DeviceDescription>& devices) {
  std::vector<std::string> ids;
  for (const auto& d : devices) ids.push_back(d.id);
  return fmt::format("{}", fmt::join(ids, ", "));
}

jit::Runtime& runtime() {
  static std::unique_ptr<jit::Runtime> rt = [] {
    jit::RuntimeOptions options;
    options.device = "cpu:0";
    auto created = jit::Runtime::create(options);
    REQUIRE_MESSAGE(created.has_value(), created.status().message());
    return std::move(*created);
  }();
  return *rt;
}

// One selected device and what it skips.
struct DeviceRun {
  Target target;
  UnsupportedList skip;
  int checked = 0;
  int skipped = 0;
  double seconds = 0;
};

std::vector<DeviceRun> prepare_devices(jit::Runtime& rt) {
  const char* env = std::getenv("PLAIDML_CONFORMANCE_DEVICES");
  auto targets = select_targets(rt.devices(), env ? env : "");
  REQUIRE_MESSAGE(targets.has_value(), targets.status().message());
  if (!env || trim(env).empty()) {
    for (const auto& d : rt.devices()) {
      if (!d.available) MESSAGE("device " << d.id << " is not available: " << d.unavailable_reason);
    }
  }
  std::vector<DeviceRun> runs;
  for (const Target& t : *targets) {
    auto list = load_unsupported(unsupported_dir(), t.kind);
    REQUIRE_MESSAGE(list.has_value(), list.status().message());
    if (list->all_reason) {
      MESSAGE("device " << t.id << " skipped: unsupported/" << t.kind
                        << ".txt: " << *list->all_reason);
      continue;
    }
    runs.push_back({t, std::move(*list)});
  }
  return runs;
}

Expected<std::vector<HostTensor>> reference(const std::shared_ptr<const ir::Program>& program,
                                            const std::vector<HostTensor>& inputs) {
  std::vector<Shape> shapes;
  for (const HostTensor& t : inputs) shapes.push_back(t.shape);
  auto bound = ir::bind(program, shapes);
  if (!bound) return bound.status();
  return eval::evaluate(*bound, inputs);
}

// One shape set of one case on every device that runs it. `salt` varies the input values.
void check_shape_set(jit::Runtime& rt, const Case& c,
                     const std::shared_ptr<const ir::Program>& program, size_t s, uint64_t salt,
                     std::vector<DeviceRun*>& devices) {
  std::vector<HostTensor> inputs = make_inputs(c, s, salt);
  std::string where = fmt::format("case {}, inputs {}{}", c.name, describe_inputs(*program, inputs),
                                  salt ? " (second run: a cached plan, new values)" : "");
  auto expected = reference(program, inputs);
  CHECK_MESSAGE(expected.has_value(),
                where << ": the reference interpreter failed: " << expected.status().message());
  if (!expected) return;
  for (DeviceRun* d : devices) {
    auto start = std::chrono::steady_clock::now();
    std::string report = run_and_compare(rt, d->target, c, program, inputs, *expected);
    d->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++d->checked;
    CHECK_MESSAGE(report.empty(), "device " << d->target.id << ", " << where << ": " << report
                                            << "\nTile:" << c.tile);
  }
}

// Every shape set of one case, then the first one again with new values: a plan served from the
// cache must not have kept anything of the first inputs.
void run_case(jit::Runtime& rt, const Case& c, std::vector<DeviceRun*>& devices) {
  auto program = parse::parse_tile(c.tile, c.name);
  CHECK_MESSAGE(program.has_value(),
                "case " << c.name << " does not parse: " << program.status().message());
  if (!program) return;
  for (size_t s = 0; s < c.shapes.size(); ++s) check_shape_set(rt, c, *program, s, 0, devices);
  check_shape_set(rt, c, *program, 0, /*salt=*/1, devices);
}

Expected<std::shared_ptr<jit::Buffer>> upload(jit::Runtime& rt, int device, const HostTensor& t) {
  auto buffer = rt.allocate(device, t.shape);
  if (!buffer) return buffer.status();
  Status s = rt.write(**buffer, t.bytes.data(), t.bytes.size());
  if (!s.is_ok()) return s;
  return *buffer;
}

std::string compare_outputs(jit::Runtime& rt, const Case& c, const ir::Program& program,
                            const NamedBuffers& outputs, const std::vector<HostTensor>& expected) {
  if (outputs.size() != expected.size()) {
    return fmt::format("{} outputs returned, {} expected", outputs.size(), expected.size());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    HostTensor actual(outputs[i].second->shape());
    Status s = rt.read(*outputs[i].second, actual.bytes.data(), actual.bytes.size());
    if (!s.is_ok()) return fmt::format("reading output {}: {}", outputs[i].first, s.message());
    std::string report = testing::compare_tensors(actual, expected[i], c.tolerance);
    if (!report.empty()) return fmt::format("output {}: {}", program.outputs[i].first, report);
  }
  return "";
}

}  // namespace

// The environment may point elsewhere: a binary built on one machine and run on another (the
// GPU machine) does not find the source tree at its build-time path.
std::string unsupported_dir() {
  const char* env = std::getenv("PLAIDML_CONFORMANCE_UNSUPPORTED_DIR");
  return env && *env ? env : PLAIDML_CONFORMANCE_UNSUPPORTED_DIR;
}

Expected<std::vector<Target>> select_targets(const std::vector<jit::DeviceDescription>& devices,
                                             const std::string& selection) {
  std::vector<Target> targets;
  if (trim(selection).empty()) {
    for (size_t i = 0; i < devices.size(); ++i) {
      if (devices[i].available)
        targets.push_back({int(i), devices[i].id, backend_of(devices[i].id)});
    }
    return targets;
  }
  size_t pos = 0;
  while (pos <= selection.size()) {
    size_t comma = std::min(selection.find(',', pos), selection.size());
    std::string id = trim(selection.substr(pos, comma - pos));
    pos = comma + 1;
    if (id.empty()) continue;
    size_t i = 0;
    while (i < devices.size() && devices[i].id != id) ++i;
    if (i == devices.size()) {
      return make_error(
          StatusCode::kNotFound,
          "PLAIDML_CONFORMANCE_DEVICES names '{}', which is not a device (devices: {})", id,
          known_ids(devices));
    }
    if (!devices[i].available) {
      return make_error(StatusCode::kNotFound,
                        "PLAIDML_CONFORMANCE_DEVICES names '{}', which is not available: {}", id,
                        devices[i].unavailable_reason);
    }
    targets.push_back({int(i), devices[i].id, backend_of(devices[i].id)});
  }
  return targets;
}

std::vector<HostTensor> make_inputs(const Case& c, size_t shape_set, uint64_t salt) {
  const ShapeSet& dims = c.shapes.at(shape_set);
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < dims.size(); ++i) {
    testing::RandomOptions options =
        c.ranges.empty() ? testing::RandomOptions{} : per_input(c.ranges, i);
    Shape shape(per_input(c.dtypes, i), dims[i]);
    inputs.push_back(testing::random_tensor(shape, seed_of(c.name, shape_set, i, salt), options));
  }
  return inputs;
}

std::string describe_inputs(const ir::Program& program, const std::vector<HostTensor>& inputs) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string name = i < program.inputs.size() ? program.nodes[program.inputs[i]].name : "?";
    parts.push_back(name + " " + inputs[i].shape.to_string());
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string run_and_compare(jit::Runtime& rt, const Target& target, const Case& c,
                            const std::shared_ptr<const ir::Program>& program,
                            const std::vector<HostTensor>& inputs,
                            const std::vector<HostTensor>& expected) {
  NamedBuffers in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto buffer = upload(rt, target.index, inputs[i]);
    if (!buffer) return "uploading an input: " + buffer.status().message();
    in.emplace_back(program->nodes[program->inputs[i]].name, *buffer);
  }
  NamedBuffers out;
  Status s = jit::run_by_name(rt, program, target.index, in, &out);
  if (!s.is_ok()) {
    return fmt::format("run failed ({}): {}", status_code_name(s.code()), s.message());
  }
  return compare_outputs(rt, c, *program, out, expected);
}

void run_family(const Family& family) {
  jit::Runtime& rt = runtime();
  std::vector<DeviceRun> devices = prepare_devices(rt);
  for (const Case& c : family.cases) {
    std::vector<DeviceRun*> active;
    for (DeviceRun& d : devices) {
      if (d.skip.cases.count(c.name)) {
        ++d.skipped;
      } else {
        active.push_back(&d);
      }
    }
    if (!active.empty()) run_case(rt, c, active);
  }
  for (const DeviceRun& d : devices) {
    MESSAGE(fmt::format("{} on {}: {} cases, {} case-shape runs, {} cases skipped, {:.2f} s",
                        family.name, d.target.id, family.cases.size(), d.checked, d.skipped,
                        d.seconds));
  }
}

}  // namespace plaidml::conformance
