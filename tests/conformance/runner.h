// The conformance runner: every case of a family, at every shape set, on every selected device,
// compared with the reference interpreter on the same seeded inputs.
//
// Devices: every available device of jit::Runtime::devices(), or the comma-separated ids of
// PLAIDML_CONFORMANCE_DEVICES. A device skips the cases its unsupported/<kind>.txt lists.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "conformance_case.h"
#include "core/base/status.h"
#include "core/types/tensor.h"
#include "jit/runtime.h"

namespace plaidml::conformance {

struct Target {
  int index = 0;  // into Runtime::devices()
  std::string id;
  std::string kind;  // the id's backend prefix ("opencl" for "opencl:0"): names its list
};

// The devices to run on. `selection` is the PLAIDML_CONFORMANCE_DEVICES value ("" = every
// available device). Errors (kNotFound): an unknown or unavailable id, naming the known ones.
Expected<std::vector<Target>> select_targets(const std::vector<jit::DeviceDescription>& devices,
                                             const std::string& selection);

// Seeded inputs of one case at one shape set (the same on every run and platform); another salt
// gives other values.
std::vector<HostTensor> make_inputs(const Case& c, size_t shape_set, uint64_t salt = 0);

// Runs one case on one device with these inputs and compares every output with `expected`.
// Returns "" on a match, else what went wrong (status message or first mismatch).
std::string run_and_compare(jit::Runtime& rt, const Target& target, const Case& c,
                            const std::shared_ptr<const ir::Program>& program,
                            const std::vector<HostTensor>& inputs,
                            const std::vector<HostTensor>& expected);

// The doctest body of one family: checks every (case, shape set, device) and reports the
// device, the case, the input shapes and the first mismatch of each failure.
void run_family(const Family& family);

// "A f32[7, 13], B f32[13, 5]": the inputs of a shape set, for reports.
std::string describe_inputs(const ir::Program& program, const std::vector<HostTensor>& inputs);

// Where the unsupported/<kind>.txt lists live.
std::string unsupported_dir();

}  // namespace plaidml::conformance
