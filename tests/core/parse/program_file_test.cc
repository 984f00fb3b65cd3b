// Program files (core/parse/program_file.h): a program with weights and ONNX-style names comes
// back computing the same numbers (the interpreter's), and every kind of bad file is an error
// that names the problem, never a crash, a hang or a wrong weight.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/eval/interpreter.h"
#include "core/ir/builder.h"
#include "core/ir/constant.h"
#include "core/ir/printer.h"
#include "core/parse/parse.h"
#include "core/parse/program_file.h"

namespace plaidml::parse {
namespace {

namespace fs = std::filesystem;

struct Folder {
  Folder() {
    std::string pattern = (fs::temp_directory_path() / "plaidml_program_XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return path + "/" + name; }
  std::string path;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_all(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  REQUIRE(out.good());
}

// Y = relu((X W + B) W) for X of dims [batch, 8] named as ONNX names things, a weight of 64
// elements (by digest in the text) under two nodes (stored once), and a bias of 8 (by value).
std::shared_ptr<const ir::Program> onnx_like() {
  ir::ProgramBuilder b("dense");
  auto x = b.add_input("input/0:x", std::vector<std::string>{"batch", "8"}, DType::F32, {});
  std::vector<float> w(64), bias(8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 7) - 3.0f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.5f * static_cast<float>(i);
  auto wc = ir::copy_constant(Shape(DType::F32, {8, 8}), w.data());
  auto bc = ir::copy_constant(Shape(DType::F32, {8}), bias.data());
  REQUIRE(x.has_value());
  auto wv = b.add_constant("fc.weight", *wc, {});
  auto wv2 = b.add_constant("", *wc, {});
  auto bv = b.add_constant("fc.bias", *bc, {});
  REQUIRE((wv && wv2 && bv));
  auto matmul = [&](ir::ValueId a, ir::ValueId w) {
    ir::Contraction c;
    c.agg = ir::AggOp::kSum;
    c.comb = ir::CombOp::kMul;
    c.out_indices = {ir::IntExpr::index("i"), ir::IntExpr::index("j")};
    c.out_sizes = {ir::IntExpr::dim("batch"), ir::IntExpr::literal(8)};
    c.inputs = {{a, {ir::IntExpr::index("i"), ir::IntExpr::index("k")}, {}},
                {w, {ir::IntExpr::index("k"), ir::IntExpr::index("j")}, {}}};
    auto mm = b.add_contraction(std::move(c), {});
    INFO(mm.status().message());
    REQUIRE(mm.has_value());
    return *mm;
  };
  b.set_origin("fc (Gemm)");
  auto sum = b.add_elementwise(ir::OpKind::Add, {matmul(*x, *wv), *bv}, {}, {});
  b.set_origin("");
  REQUIRE(sum.has_value());
  ir::ValueId twice = matmul(*sum, *wv2);
  auto y = b.add_call("relu", {twice}, {}, {});
  REQUIRE(y.has_value());
  REQUIRE(b.assign("out`put", *y, {}).is_ok());
  REQUIRE(b.add_output("out`put", {}).is_ok());
  auto p = b.finish();
  INFO(p.status().message());
  REQUIRE(p.has_value());
  return *p;
}

HostTensor run(const std::shared_ptr<const ir::Program>& program) {
  HostTensor x(Shape(DType::F32, {3, 8}));
  for (int i = 0; i < 24; ++i) x.data<float>()[i] = static_cast<float>(i % 5) - 2.0f;
  auto bound = ir::bind(program, {x.shape});
  INFO(bound.status().message());
  REQUIRE(bound.has_value());
  auto out = eval::evaluate(*bound, {x});
  REQUIRE(out.has_value());
  return (*out)[0];
}

Status load_error(const std::string& path, const ProgramFileOptions& options = {}) {
  auto p = load_program(path, options);
  REQUIRE_FALSE(p.has_value());
  return p.status();
}

}  // namespace

TEST_CASE("program file: a program comes back printing the same and computing the same") {
  Folder dir;
  auto program = onnx_like();
  std::string text = ir::print_tile(*program);
  CHECK(text.find("`input/0:x`: f32[`batch`, 8]") != std::string::npos);
  CHECK(text.find("`out``put`") != std::string::npos);
  REQUIRE(save_program(*program, dir.file("p")).is_ok());
  auto back = load_program(dir.file("p"));
  INFO(back.status().message());
  REQUIRE(back.has_value());
  CHECK(ir::print_tile(**back) == text);
  CHECK((*back)->fingerprint() == program->fingerprint());
  CHECK((*back)->name == "dense");
  CHECK((*back)->nodes[(*back)->inputs[0]].name == "input/0:x");
  CHECK((*back)->outputs[0].first == "out`put");
  // Where nodes came from (profiles name kernels by it) comes back too.
  int from_gemm = 0;
  for (const auto& n : (*back)->nodes) from_gemm += n.origin == "fc (Gemm)";
  CHECK(from_gemm == 2);  // the contraction and the bias add
  HostTensor want = run(program), got = run(*back);
  REQUIRE(got.shape == want.shape);
  for (int64_t i = 0; i < want.shape.elements(); ++i) {
    CHECK(got.data<float>()[i] == want.data<float>()[i]);
  }
  // The weight is stored once, 64-byte aligned, and read in place from the mapped file.
  for (const auto& n : (*back)->nodes) {
    if (n.kind != ir::NodeKind::kConstant || n.constant->shape.elements() <= 16) continue;
    CHECK(reinterpret_cast<uintptr_t>(n.constant->data) % 64 == 0);
  }
  CHECK(fs::file_size(dir.file("p")) < 1024);
  // Saving over it replaces it whole; no temporary file stays.
  REQUIRE(save_program(*program, dir.file("p")).is_ok());
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
}

TEST_CASE("program file: damage anywhere is an error naming it, never a wrong weight") {
  Folder dir;
  REQUIRE(save_program(*onnx_like(), dir.file("p")).is_ok());
  std::string bytes = read_all(dir.file("p"));
  // Every truncation.
  for (size_t n = 0; n < bytes.size(); n += 7) {
    write_all(dir.file("t"), bytes.substr(0, n));
    Status s = load_error(dir.file("t"));
    CHECK(s.code() == StatusCode::kIoError);
  }
  // Every flipped byte: an error, or (in padding) the same program.
  std::string text = ir::print_tile(*onnx_like());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x20);
    write_all(dir.file("d"), damaged);
    auto p = load_program(dir.file("d"));
    if (p.has_value()) {
      CHECK(ir::print_tile(**p) == text);
    } else {
      CHECK(p.status().code() == StatusCode::kIoError);
    }
  }
  std::string last = bytes;
  last.back() = static_cast<char>(last.back() ^ 1);  // inside the weight
  write_all(dir.file("w"), last);
  CHECK(load_error(dir.file("w")).message() ==
        "program file " + dir.file("w") + " is damaged: constant f32[8, 8] does not match its digest");
  std::string header = bytes;
  header[40] ^= 1;
  write_all(dir.file("h"), header);
  CHECK(load_error(dir.file("h")).message() ==
        "program file " + dir.file("h") + " is damaged: header checksum mismatch");
  std::string version = bytes;
  version[8] = 9;
  write_all(dir.file("v"), version);
  CHECK(load_error(dir.file("v")).message() ==
        "program file " + dir.file("v") + " has version 9; this plaidml reads 1");
  write_all(dir.file("x"), "function () -> (O) { O = 1; }");
  CHECK(load_error(dir.file("x")).message() == dir.file("x") + " is not a plaidml program file");
}

TEST_CASE("program file: missing, foreign-tagged, not regular, and untrusted paths") {
  Folder dir;
  Status missing = load_error(dir.file("none"));
  CHECK(missing.code() == StatusCode::kNotFound);
  CHECK(missing.message().find("cannot open program file " + dir.file("none")) == 0);
  REQUIRE(save_program(*onnx_like(), dir.file("p"), {"key one", false}).is_ok());
  CHECK(load_program(dir.file("p"), {"key one", false}).has_value());
  Status other = load_error(dir.file("p"), {"key two", false});
  CHECK(other.code() == StatusCode::kNotFound);
  CHECK(other.message() == "program file " + dir.file("p") + " holds another key");
  CHECK(load_error(dir.path).message() == dir.path + " is not a regular file");
  // A cache's files: no symlink is followed, and a FIFO neither blocks nor loads.
  fs::create_symlink(dir.file("p"), dir.file("link"));
  CHECK(load_program(dir.file("link"), {"key one", false}).has_value());
  CHECK(load_error(dir.file("link"), {"key one", true}).code() == StatusCode::kIoError);
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  CHECK(load_error(dir.file("fifo"), {"", true}).message() ==
        dir.file("fifo") + " is not a regular file");
  // An unwritable destination.
  Status s = save_program(*onnx_like(), dir.file("no/such/folder/p"));
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(s.message().find("cannot write " + dir.file("no/such/folder/p")) == 0);
}

TEST_CASE("quoted names: any characters round-trip, and are never index variables") {
  auto p = parse_tile(
      "function (`x/0`[`batch`, 3]) -> (`y.1`) { `t``q`[i, j : `batch`, 3] = +(`x/0`[i, j]); "
      "`y.1` = `t``q` * 2; }");
  INFO(p.status().message());
  REQUIRE(p.has_value());
  CHECK((*p)->nodes[(*p)->inputs[0]].name == "x/0");
  CHECK((*p)->outputs[0].first == "y.1");
  std::string text = ir::print_tile(**p);
  auto again = parse_tile(text);
  INFO(again.status().message());
  REQUIRE(again.has_value());
  CHECK(ir::print_tile(**again) == text);
  CHECK(ir::tile_name("Plain_1") == "Plain_1");
  CHECK(ir::tile_name("lower") == "`lower`");
  CHECK(ir::tile_name("a`b") == "`a``b`");
  auto bad = parse_tile("function (`x) -> (Y) { Y = 1; }");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.status().message() == "1:11: unterminated name");
  bad = parse_tile("function (``) -> (Y) { Y = 1; }");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.status().message() == "1:11: empty name");
}

}  // namespace plaidml::parse
