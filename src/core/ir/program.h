// The graph IR: what to compute. A Program is shape-polymorphic: dimension sizes and dtypes are
// bound later from the buffers given at run time (see ir/bind.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/ir/ops.h"
#include "core/types/dtype.h"
#include "core/types/shape.h"

namespace plaidml::ir {

using ValueId = int32_t;  // index into Program::nodes

// Where a node came from, for error messages: Tile text line:column (1-based), or the builder
// call that made it ("plaidml_program_add_contraction").
struct SourceLoc {
  int line = 0;
  int column = 0;
  std::string origin;  // builder call name when line == 0
  std::string to_string() const;  // "3:14" or "plaidml_program_add_contraction"; "" if unknown
};

// A symbolic integer expression over index variables (lowercase names) and dimension sizes
// (capitalised names bound by input declarations). In index expressions `/` is exact rational
// division; in output sizes it is C integer division (docs/tile.md section 2).
// kFloorDiv is floor division of index-free operands (Tile `floordiv(a, b)`): an integer in
// sizes and in index expressions alike, where `/` would be exact rational division. The op
// library uses it for "same" padding (pad_lo = floordiv(total, 2)).
enum class IntOp { kLiteral, kIndex, kDim, kAdd, kSub, kMul, kDiv, kNeg, kMax, kMin, kFloorDiv };

struct IntExpr;
using IntExprPtr = std::shared_ptr<const IntExpr>;

struct IntExpr {
  IntOp op = IntOp::kLiteral;
  int64_t value = 0;             // kLiteral
  std::string name;              // kIndex, kDim
  std::vector<IntExprPtr> args;  // operators: 1 (kNeg) or 2 operands
  SourceLoc loc;
  // Operators on the longest path to a leaf, plus one (a leaf is 1): set by the factories, so
  // the depth of any tree is known without walking it (see kMaxIntExprDepth).
  int depth = 1;

  static IntExprPtr literal(int64_t v, SourceLoc loc = {});
  static IntExprPtr index(std::string name, SourceLoc loc = {});
  static IntExprPtr dim(std::string name, SourceLoc loc = {});
  static IntExprPtr binary(IntOp op, IntExprPtr a, IntExprPtr b, SourceLoc loc = {});
  static IntExprPtr neg(IntExprPtr a, SourceLoc loc = {});
};

// Names of shared size subexpressions, as print_tile writes them once in `size` statements
// (printer.h, docs/tile.md).
using SizeNames = std::unordered_map<const IntExpr*, std::string>;

// The deepest integer expression a program may hold. Every walk over these trees (checks,
// binding, printing, polynomial forms, and the destructor of the shared_ptr chain) recurses once
// per level, so depth is what bounds their stack use. Real index and size expressions are a few
// levels deep; symbolic sizes grow by a level or two per op that changes a size, so a thousand
// leaves room for deep networks of symbolic shapes. Deeper is refused where a tree is built
// (the parser, the C API, symbolic shapes) before it can grow further.
inline constexpr int kMaxIntExprDepth = 1000;

// kInvalidArgument when e is deeper than kMaxIntExprDepth, naming `what` ("an index
// expression"); "" otherwise.
std::string int_depth_error(const IntExpr& e, std::string_view what);
Status check_int_depth(const IntExprPtr& e, std::string_view what);

enum class AggOp { kSum, kProd, kMax, kMin, kAssign };
// kNone: one input, its value. kCond: three inputs, (A == B) ? C : 0.
enum class CombOp { kNone, kMul, kAdd, kEq, kCond };

struct TensorAccess {
  ValueId tensor = -1;
  std::vector<IntExprPtr> indices;
  SourceLoc loc;
};

// User constraint `poly < bound`, meaning 0 <= poly < bound.
struct UserConstraint {
  IntExprPtr poly;
  IntExprPtr bound;
  SourceLoc loc;
};

struct Contraction {
  AggOp agg = AggOp::kSum;
  CombOp comb = CombOp::kNone;
  std::vector<IntExprPtr> out_indices;  // empty for a scalar output O[]
  std::vector<IntExprPtr> out_sizes;    // same length as out_indices
  std::vector<TensorAccess> inputs;     // 1, 2 or 3 (kCond)
  std::vector<UserConstraint> constraints;
  std::optional<ValueId> default_value;  // `default D`: a tensor or a literal node
  bool no_defract = false;
};

enum class NodeKind { kInput, kLiteral, kElementwise, kContraction, kConstant };

// The bytes of a constant tensor (a weight): fixed shape and dtype, owned by the programs that
// use it (through shared_ptr) and by nothing else. The digest is computed once, when the
// constant is made, so that neither printing nor running ever reads the bytes again to identify
// them. Devices keep an uploaded copy per ConstantData object (jit/constant_buffers.h).
struct ConstantData {
  Shape shape;
  const void* data = nullptr;  // shape.byte_size() bytes, immutable
  uint64_t digest = 0;         // FNV-1a 64 of the bytes
  // Keeps `data` alive: a copy the builder made, or the caller's memory with its release call.
  std::shared_ptr<const void> owner;
  // `data` lies in a read-only mapping of a file (a program file): its pages may be dropped from
  // memory and read back from the file when touched again (jit/constant_buffers.h).
  bool file_backed = false;

  size_t byte_size() const { return static_cast<size_t>(shape.byte_size()); }
};

struct Node {
  NodeKind kind = NodeKind::kLiteral;
  std::string name;  // user-visible name: the assigned name, or a generated "_T<n>"
  SourceLoc loc;
  // Where the node comes from in the user's terms (an ONNX node: "conv1 (Conv)"), for profiles
  // and dumps; set through the builder (plaidml_builder_set_origin). It changes no result and
  // is neither printed nor part of any cache key.
  std::string origin;

  // kInput: dims == nullopt means unknown rank (`X`); an empty vector is a scalar (`X[]`); an
  // empty string inside is an unnamed dim of fixed position; a decimal number a fixed size. dtype, when set, is checked at bind.
  std::optional<std::vector<std::string>> input_dims;
  std::optional<DType> input_dtype;

  // kLiteral: an untyped number; it takes the type of what it meets (docs/tile.md section 3).
  // When int_args has one entry the literal is an integer: that expression over dims, evaluated
  // at bind (a dim used in elementwise code, `R = X / N`); literal_int is then unused.
  bool literal_is_float = false;
  int64_t literal_int = 0;
  double literal_float = 0.0;

  // kElementwise
  OpKind op = OpKind::Add;
  std::vector<ValueId> operands;
  std::vector<IntExprPtr> int_args;  // see ops.h

  // kContraction
  Contraction contraction;

  // kConstant
  std::shared_ptr<const ConstantData> constant;
};

// A condition over sizes that the program's result depends on but no node checks: an op whose
// operands must agree in size (conv's channels, matmul's summed axis). Tile skips out-of-range
// accesses, so without it a mismatch would give a wrong answer instead of an error. It is part
// of the program, not a node: it has no value, so no node could use it, and every pass that
// prunes unused nodes would have to be told to keep it; binding checks it once the input dims
// are known (ir/bind.h), and nothing after binding sees it.
//   kEq: lhs == rhs; kGe: lhs >= rhs; kBroadcast: lhs == rhs or either is 1 (numpy);
//   kMultiple: lhs is a multiple of rhs (rhs > 0).
enum class AssertOp { kEq, kGe, kBroadcast, kMultiple };

struct Assertion {
  AssertOp op = AssertOp::kEq;
  IntExprPtr lhs, rhs;  // sizes: dims and integers, no index variables
  // The error in the op's and user's words ("conv: argument 'input' has {0} channels, ...");
  // `{k}` stands for the value of args[k] (its text while building, when it is not a literal).
  std::string message;
  std::vector<IntExprPtr> args;
  SourceLoc loc;
};

// An input dim written as a decimal size (`X[N, 3]`) is fixed: the buffer must have exactly that
// size there. Its size, or nullopt for a dim name.
std::optional<int64_t> fixed_dim_size(const std::string& dim);

struct Program {
  std::string name;
  std::vector<Node> nodes;       // topological order: operands precede their users
  std::vector<ValueId> inputs;   // declaration order
  std::vector<std::pair<std::string, ValueId>> outputs;  // declaration order: name -> value
  std::vector<Assertion> assertions;  // checked at bind, in order, before any node

  // A stable 64-bit hash of the printed program (constants by their digest); the plan cache
  // keys on it. Computed once by ProgramBuilder::finish (a program is immutable after it), else
  // on each call.
  uint64_t fingerprint() const;
  uint64_t cached_fingerprint = 0;  // 0: not computed
  std::optional<ValueId> find_input(const std::string& name) const;
  std::optional<size_t> find_output(const std::string& name) const;
};

}  // namespace plaidml::ir
