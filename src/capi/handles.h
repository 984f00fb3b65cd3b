// The structs behind the opaque handles of plaidml.h. Handles own C++ objects through
// shared_ptr so that destruction order between contexts, buffers and programs never matters.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/ir/builder.h"
#include "core/ir/program.h"
#include "core/oplib/oplib.h"
#include "core/types/shape.h"
#include "jit/runtime.h"
#include "plaidml/plaidml.h"

struct plaidml_context_options {
  plaidml::jit::RuntimeOptions options;
};

struct plaidml_context {
  std::shared_ptr<plaidml::jit::Runtime> runtime;
  std::atomic<int> device{0};  // index into runtime->devices(): the selected device
};

struct plaidml_program {
  std::shared_ptr<const plaidml::ir::Program> program;
};

struct plaidml_buffer {
  std::shared_ptr<plaidml::jit::Runtime> runtime;  // keeps the allocation's owner alive
  std::shared_ptr<plaidml::jit::Buffer> buffer;
};

struct plaidml_builder {
  plaidml::ir::ProgramBuilder builder;
  std::vector<plaidml::ir::IntExprPtr> exprs;  // plaidml_expr::id indexes this

  explicit plaidml_builder(std::string name) : builder(std::move(name)) {}
};

struct plaidml_attrs {
  plaidml::oplib::Attrs attrs;
};

struct plaidml_contraction {
  plaidml_builder* owner = nullptr;
  plaidml::ir::Contraction contraction;
};

namespace plaidml::capi {

// Argument conversion shared by several entry-point families.
Expected<DType> to_dtype(const char* fn, plaidml_dtype dtype);
// dims: rank entries (NULL allowed when rank is 0); each >= 0; the byte size must fit size_t.
Expected<Shape> to_shape(const char* fn, plaidml_dtype dtype, size_t rank, const int64_t* dims);
// A value id made by this builder.
Status check_value(const char* fn, const plaidml_builder& builder, plaidml_value value);
Expected<ir::IntExprPtr> to_expr(const char* fn, const plaidml_builder& builder, plaidml_expr e);

// Builder nodes made by a C call are located by the call's name in error messages.
inline ir::SourceLoc loc_of(const char* fn) {
  ir::SourceLoc loc;
  loc.origin = fn;
  return loc;
}

}  // namespace plaidml::capi
