// plaidml OpenCL C for golden gpu
#pragma OPENCL FP_CONTRACT ON

__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void k0_M(__global float* restrict s0, __global float* restrict s1) {
  const int local0 = (int)get_local_id(0);
  const int group0 = (int)get_group_id(0);
  __local float partials[256] __attribute__((aligned(16)));
  float v__40part = (-INFINITY);
  #pragma unroll
  for (int v__40w = 0; v__40w < 2; v__40w += 1) {
    if ((((v__40w * 256) + local0) < 300)) {
      v__40part = fmax(v__40part, s0[((group0 * 300) + ((v__40w * 256) + local0))]);
    }
  }
  partials[local0] = v__40part;
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((local0 < 128)) {
    partials[local0] = fmax(partials[local0], partials[(local0 + 128)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((local0 < 64)) {
    partials[local0] = fmax(partials[local0], partials[(local0 + 64)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((local0 < 32)) {
    partials[local0] = fmax(partials[local0], partials[(local0 + 32)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((local0 < 16)) {
    partials[local0] = fmax(partials[local0], partials[(local0 + 16)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((local0 < 8)) {
    partials[local0] = fmax(partials[local0], partials[(local0 + 8)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((local0 < 4)) {
    partials[local0] = fmax(partials[local0], partials[(local0 + 4)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((local0 < 2)) {
    partials[local0] = fmax(partials[local0], partials[(local0 + 2)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if ((local0 < 1)) {
    partials[local0] = fmax(partials[local0], partials[(local0 + 1)]);
  }
  if ((local0 < 1)) {
    float v__24acc = (-INFINITY);
    v__24acc = fmax(v__24acc, partials[0]);
    s1[group0] = v__24acc;
  }
}

