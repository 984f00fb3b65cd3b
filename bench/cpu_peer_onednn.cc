// oneDNN as the CPU bench's peer: the matmul, convolution and softmax primitives, f32. Weights
// get format_tag::any, so oneDNN picks its preferred (blocked) layout and the reorder into it is
// part of the "compile" (primitive creation), as a framework does once per model; activations
// stay NHWC / row-major, the layout plaidml reads and writes. oneDNN here is built with OpenMP
// (libgomp), so its thread count is omp_set_num_threads.
#include <omp.h>

#include <cstring>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <utility>

#include "cpu_peers.h"

namespace plaidml_bench {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr memory::data_type kF32 = memory::data_type::f32;

// One prepared primitive and its arguments, shared by the run and output closures.
struct OneDnnState {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::primitive primitive;
  std::unordered_map<int, memory> args;
  memory dst;
};

memory from_host(const dnnl::engine& engine, const memory::desc& desc,
                 const std::vector<float>& values) {
  memory m(desc, engine);
  std::memcpy(m.get_data_handle(), values.data(), values.size() * sizeof(float));
  return m;
}

// `user` in the layout the primitive wants (a reorder when they differ).
memory in_layout(OneDnnState& s, memory user, const memory::desc& want) {
  if (user.get_desc() == want) return user;
  memory m(want, s.engine);
  dnnl::reorder(user, m).execute(s.stream, user, m);
  s.stream.wait();
  return m;
}

PreparedCase finish(std::shared_ptr<OneDnnState> s, const dnnl::primitive_desc& pd) {
  PreparedCase p;
  p.detail = pd.impl_info_str();
  p.run = [s] {
    s->primitive.execute(s->stream, s->args);
    s->stream.wait();
  };
  p.output = [s] {
    const size_t count = s->dst.get_desc().get_size() / sizeof(float);
    const float* data = static_cast<const float*>(s->dst.get_data_handle());
    return std::vector<float>(data, data + count);
  };
  return p;
}

PreparedCase prepare_matmul(const MatmulOp& op, const HostInputs& in) {
  auto s = std::make_shared<OneDnnState>();
  memory::desc a_md({op.m, op.k}, kF32, Tag::ab), b_md({op.k, op.n}, kF32, Tag::ab);
  memory::desc c_md({op.m, op.n}, kF32, Tag::ab);
  memory::desc b_any({op.k, op.n}, kF32, Tag::any);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_any, c_md), s->engine);
  memory b = in_layout(*s, from_host(s->engine, b_md, in[1]), pd.weights_desc());
  s->dst = memory(pd.dst_desc(), s->engine);
  s->args = {{DNNL_ARG_SRC, from_host(s->engine, a_md, in[0])},
             {DNNL_ARG_WEIGHTS, b},
             {DNNL_ARG_DST, s->dst}};
  s->primitive = dnnl::matmul(pd);
  return finish(s, pd);
}

// oneDNN's dims are logical NCHW / OIHW whatever the layout; the tags say NHWC and HWIO.
PreparedCase prepare_conv(const ConvOp& op, const HostInputs& in) {
  auto s = std::make_shared<OneDnnState>();
  memory::desc src_md({op.n, op.ci, op.h, op.w}, kF32, Tag::nhwc);
  memory::desc user_w_md({op.co, op.ci, op.kh, op.kw}, kF32, Tag::hwio);
  memory::desc w_any({op.co, op.ci, op.kh, op.kw}, kF32, Tag::any);
  memory::desc bias_md = op.bias_relu ? memory::desc({op.co}, kF32, Tag::x) : memory::desc();
  memory::desc dst_md({op.n, op.co, op.out_h(), op.out_w()}, kF32, Tag::nhwc);
  dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md, w_any,
      bias_md, dst_md, {op.stride, op.stride}, {op.pad, op.pad}, {op.pad, op.pad});
  dnnl::primitive_attr attr;
  if (op.bias_relu) {
    dnnl::post_ops post;
    post.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(post);
  }
  dnnl::convolution_forward::primitive_desc pd(desc, attr, s->engine);
  memory w = in_layout(*s, from_host(s->engine, user_w_md, in[1]), pd.weights_desc());
  s->dst = memory(pd.dst_desc(), s->engine);
  s->args = {{DNNL_ARG_SRC, from_host(s->engine, src_md, in[0])},
             {DNNL_ARG_WEIGHTS, w},
             {DNNL_ARG_DST, s->dst}};
  if (op.bias_relu) s->args[DNNL_ARG_BIAS] = from_host(s->engine, bias_md, in[2]);
  s->primitive = dnnl::convolution_forward(pd);
  return finish(s, pd);
}

PreparedCase prepare_softmax(const SoftmaxOp& op, const HostInputs& in) {
  auto s = std::make_shared<OneDnnState>();
  memory::desc md({op.rows, op.classes}, kF32, Tag::ab);
  dnnl::softmax_forward::primitive_desc pd(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, 1), s->engine);
  s->dst = memory(pd.dst_desc(), s->engine);
  s->args = {{DNNL_ARG_SRC, from_host(s->engine, md, in[0])}, {DNNL_ARG_DST, s->dst}};
  s->primitive = dnnl::softmax_forward(pd);
  return finish(s, pd);
}

PreparedCase prepare(const BenchCase& c, const HostInputs& in) {
  if (const auto* op = std::get_if<MatmulOp>(&c.op)) return prepare_matmul(*op, in);
  if (const auto* op = std::get_if<ConvOp>(&c.op)) return prepare_conv(*op, in);
  return prepare_softmax(std::get<SoftmaxOp>(c.op), in);
}

const char* isa_name(dnnl::cpu_isa isa) {
  using I = dnnl::cpu_isa;
  static const std::pair<I, const char*> kNames[] = {
      {I::sse41, "sse41"},
      {I::avx, "avx"},
      {I::avx2, "avx2"},
      {I::avx2_vnni, "avx2_vnni"},
      {I::avx512_core, "avx512_core"},
      {I::avx512_core_vnni, "avx512_core_vnni"},
      {I::avx512_core_bf16, "avx512_core_bf16"},
      {I::avx512_core_amx, "avx512_core_amx"},
  };
  for (const auto& [value, name] : kNames) {
    if (value == isa) return name;
  }
  return "other";
}

std::string runtime_name(unsigned runtime) {
  if (runtime == DNNL_RUNTIME_OMP) return "OpenMP";
  if (runtime == DNNL_RUNTIME_TBB) return "TBB";
  if (runtime == DNNL_RUNTIME_SEQ) return "sequential";
  if (runtime == DNNL_RUNTIME_THREADPOOL) return "threadpool";
  return "runtime " + std::to_string(runtime);
}

}  // namespace

Peer onednn_peer() {
  const dnnl::version_t* v = dnnl::version();
  Peer p;
  p.name = "onednn";
  p.version =
      std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
  p.detail = runtime_name(v->cpu_runtime) + ", ISA " + isa_name(dnnl::get_effective_cpu_isa());
  p.run = [](const BenchCase& c, int threads, const RunSettings& settings) {
    // Before the primitive is created: oneDNN sizes its work split by the thread count then.
    omp_set_num_threads(threads);
    HostInputs inputs = make_inputs(c, settings.seed);
    return run_prepared(c, inputs, settings, [&] { return prepare(c, inputs); });
  };
  return p;
}

}  // namespace plaidml_bench
