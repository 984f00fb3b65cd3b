// plaidml_clblast_bench: CLBlast's f32 GEMM (CLBlastSgemm) on an OpenCL device, the peer of
// plaidml_gpu_bench's matmul cases on the same driver, in the same run (issue 36's table).
//
//   plaidml_clblast_bench [--device-index N] [--sizes 1024,2048,4096,8192] [--warmup 3]
//                         [--warmup-seconds 1] [--repeat 20] [--max-seconds 10] [--seed 1]
//
// Warm-up is at least --warmup calls and --warmup-seconds of them, plaidml_gpu_bench's rule.
//
// The device: the N-th GPU over all OpenCL platforms (default 0), or the first device of any
// type where there is no GPU (PoCL here). Each case times CLBlastSgemm followed by clFinish on
// the wall clock, as plaidml_gpu_bench times plaidml_execute (launch and synchronisation
// included); the first call, which builds CLBlast's kernels, is reported as compile_ms. 8
// elements of C are checked against a float64 host computation within 1e-4 of the sum of
// |terms|. One JSON line per case on stdout in plaidml_gpu_bench's fields (bench/compare_gpu.py
// shows it as the column "clblast"), a table on stderr. Exit status 1 when a case failed.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <clblast_c.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

struct Options {
  int device_index = 0;
  std::vector<size_t> sizes = {1024, 2048, 4096, 8192};
  int warmup = 3, repeat = 20;
  double warmup_seconds = 1;
  double max_seconds = 10;
  unsigned seed = 1;
};

struct Device {
  cl_device_id id = nullptr;
  std::string name;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    char* end = nullptr;
    if (flag == "--sizes") {
      o.sizes.clear();
      for (size_t at = 0; at <= value.size();) {
        size_t comma = std::min(value.find(',', at), value.size());
        o.sizes.push_back(std::strtoull(value.substr(at, comma - at).c_str(), &end, 10));
        if (o.sizes.back() == 0) return false;
        at = comma + 1;
      }
      continue;
    }
    double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || v < 0) return false;
    if (flag == "--device-index") o.device_index = int(v);
    else if (flag == "--warmup") o.warmup = int(v);
    else if (flag == "--warmup-seconds") o.warmup_seconds = v;
    else if (flag == "--repeat" && v >= 1) o.repeat = int(v);
    else if (flag == "--max-seconds") o.max_seconds = v;
    else if (flag == "--seed") o.seed = unsigned(v);
    else return false;
  }
  return argc % 2 == 1;
}

// All devices of `type` over every platform, in platform order.
std::vector<Device> devices_of(cl_device_type type) {
  cl_uint n = 0;
  std::vector<Device> out;
  if (clGetPlatformIDs(0, nullptr, &n) != CL_SUCCESS || n == 0) return out;
  std::vector<cl_platform_id> platforms(n);
  clGetPlatformIDs(n, platforms.data(), nullptr);
  for (cl_platform_id p : platforms) {
    cl_uint count = 0;
    if (clGetDeviceIDs(p, type, 0, nullptr, &count) != CL_SUCCESS) continue;
    std::vector<cl_device_id> ids(count);
    clGetDeviceIDs(p, type, count, ids.data(), nullptr);
    for (cl_device_id id : ids) {
      char name[256] = {0};
      clGetDeviceInfo(id, CL_DEVICE_NAME, sizeof name - 1, name, nullptr);
      out.push_back({id, name});
    }
  }
  return out;
}

double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// The spot check: 8 elements of C = A x B (n x n, row-major) against float64 sums.
bool check(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
           size_t n, double* worst) {
  *worst = 0;
  for (size_t s = 0; s < 8; ++s) {
    size_t i = (s * 7919) % n, j = (s * 104729 + n - 1) % n;
    double sum = 0, scale = 0;
    for (size_t k = 0; k < n; ++k) {
      sum += double(a[i * n + k]) * b[k * n + j];
      scale += std::fabs(double(a[i * n + k]) * b[k * n + j]);
    }
    double err = std::fabs(c[i * n + j] - sum) / std::max(scale, 1e-30);
    *worst = std::max(*worst, err);
  }
  return *worst <= 1e-4;
}

struct Timing {
  double first_ms = 0, min_ms = 0, median_ms = 0;
  int runs = 0;
};

// One case: buffers, the first (compiling) call, warm-up and timed calls, the check.
bool run_case(cl_context ctx, cl_command_queue queue, size_t n, const Options& o, Timing* t,
              double* worst, std::string* error) {
  std::mt19937 rng(o.seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> a(n * n), b(n * n), c(n * n, 0.f);
  for (float& v : a) v = u(rng);
  for (float& v : b) v = u(rng);
  cl_int err = CL_SUCCESS;
  const size_t bytes = n * n * sizeof(float);
  cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a.data(), &err);
  cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b.data(), &err);
  cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  auto gemm = [&]() {
    CLBlastStatusCode s = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
                                       CLBlastTransposeNo, n, n, n, 1.f, da, 0, n, db, 0, n, 0.f,
                                       dc, 0, n, &queue, nullptr);
    clFinish(queue);
    return s;
  };
  bool ok = da && db && dc;
  double start = now_ms();
  CLBlastStatusCode s = ok ? gemm() : CLBlastInvalidMemObject;
  t->first_ms = now_ms() - start;
  // Warm-up and timed calls stop early after --max-seconds, with at least 3 timed
  // (plaidml_gpu_bench's rule).
  const double deadline = now_ms() + o.max_seconds * 1000;
  const double warmed_at = now_ms() + o.warmup_seconds * 1000;
  for (int r = 0;
       s == CLBlastSuccess && (r < o.warmup || now_ms() < warmed_at) && now_ms() < deadline; ++r) {
    s = gemm();
  }
  std::vector<double> times;
  for (int r = 0; s == CLBlastSuccess && r < o.repeat; ++r) {
    if (times.size() >= 3 && now_ms() > deadline) break;
    start = now_ms();
    s = gemm();
    times.push_back(now_ms() - start);
  }
  if (s == CLBlastSuccess && times.empty()) s = CLBlastInvalidValue;  // --repeat 0 is refused
  if (s == CLBlastSuccess) {
    clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, bytes, c.data(), 0, nullptr, nullptr);
  }
  for (cl_mem m : {da, db, dc}) {
    if (m) clReleaseMemObject(m);
  }
  if (s != CLBlastSuccess) {
    *error = "CLBlastSgemm returned " + std::to_string(int(s));
    return false;
  }
  std::sort(times.begin(), times.end());
  t->runs = int(times.size());
  t->min_ms = times.front();
  t->median_ms = times[times.size() / 2];
  if (!check(a, b, c, n, worst)) {
    *error = "spot check failed";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(
        stderr,
        "usage: plaidml_clblast_bench [--device-index N] [--sizes N,N...] [--warmup N]\n"
        "                             [--warmup-seconds S] [--repeat N] [--max-seconds S]\n"
        "                             [--seed N]\n");
    return 2;
  }
  std::vector<Device> devices = devices_of(CL_DEVICE_TYPE_GPU);
  if (devices.empty()) devices = devices_of(CL_DEVICE_TYPE_ALL);
  if (o.device_index >= int(devices.size())) {
    std::fprintf(stderr, "plaidml_clblast_bench: no OpenCL device %d (%zu found)\n",
                 o.device_index, devices.size());
    return 1;
  }
  const Device& d = devices[size_t(o.device_index)];
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &d.id, nullptr, nullptr, &err);
  cl_command_queue queue = clCreateCommandQueue(ctx, d.id, 0, &err);
  if (!ctx || !queue) {
    std::fprintf(stderr, "plaidml_clblast_bench: cannot open %s (error %d)\n", d.name.c_str(), err);
    return 1;
  }
  std::fprintf(stderr, "CLBlast on %s\n", d.name.c_str());
  std::fprintf(stderr, "case           first ms     min ms  median ms   GFLOP/s  check\n");
  int failed = 0;
  for (size_t n : o.sizes) {
    Timing t;
    double worst = 0;
    std::string error;
    bool ok = run_case(ctx, queue, n, o, &t, &worst, &error);
    const double flop = 2.0 * double(n) * n * n;
    const std::string name = "matmul_" + std::to_string(n);
    if (!ok) {
      ++failed;
      std::printf("{\"impl\": \"clblast\", \"device\": \"clblast\", \"device_name\": \"%s\", "
                  "\"case\": \"%s\", \"status\": \"error\", \"error\": \"%s\"}\n",
                  d.name.c_str(), name.c_str(), error.c_str());
      std::fprintf(stderr, "%-12s  %s\n", name.c_str(), error.c_str());
      continue;
    }
    const double gflops = flop / (t.median_ms * 1e6);
    std::printf("{\"impl\": \"clblast\", \"device\": \"clblast\", \"device_name\": \"%s\", "
                "\"case\": \"%s\", \"status\": \"ok\", \"check\": \"ok\", \"flop\": %.6g, "
                "\"compile_ms\": %.3f, \"min_ms\": %.4f, \"median_ms\": %.4f, \"runs\": %d, "
                "\"gflops\": %.1f, \"max_rel_error\": %.3g}\n",
                d.name.c_str(), name.c_str(), flop, t.first_ms, t.min_ms, t.median_ms, t.runs,
                gflops, worst);
    std::fprintf(stderr, "%-12s %9.2f %10.3f %10.3f %9.1f  ok\n", name.c_str(), t.first_ms,
                 t.min_ms, t.median_ms, gflops);
  }
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return failed ? 1 : 0;
}
