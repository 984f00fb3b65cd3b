// plaidml OpenCL C for golden gpu
#pragma OPENCL FP_CONTRACT ON
inline float plaidml_relu_f32(float x) { return x < 0 ? (float)0 : x; }

__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void k0_C(__global float* restrict s0, __global float* restrict s1, __global float* restrict s2, __global float* restrict s3) {
  const int local0 = (int)get_local_id(0);
  const int group0 = (int)get_group_id(0);
  const int local1 = (int)get_local_id(1);
  const int group1 = (int)get_group_id(1);
  __local float tile0[288];
  __local float tile1[288];
  float v__40acc0__0 = 0x0p+0f;
  if (((((group1 * 8) + local1) < 33) & (((group0 * 8) + local0) < 18))) {
    v__40acc0__0 = 0x0p+0f;
  }
  for (int v__40k0 = 0; v__40k0 < 20; v__40k0 += 32) {
    #pragma unroll
    for (int v__40s0 = 0; v__40s0 < 4; v__40s0 += 1) {
      float v__40v0 = 0x0p+0f;
      if ((((v__40k0 + ((((local1 * 8) + local0) + (v__40s0 * 64)) % 32)) < 20) & (((group1 * 8) + ((((local1 * 8) + local0) + (v__40s0 * 64)) / 32)) < 33))) {
        v__40v0 = s0[((((group1 * 8) + ((((local1 * 8) + local0) + (v__40s0 * 64)) / 32)) * 20) + (v__40k0 + ((((local1 * 8) + local0) + (v__40s0 * 64)) % 32)))];
      }
      tile0[((((((local1 * 8) + local0) + (v__40s0 * 64)) % 32) * 9) + ((((local1 * 8) + local0) + (v__40s0 * 64)) / 32))] = v__40v0;
    }
    #pragma unroll
    for (int v__40s1 = 0; v__40s1 < 4; v__40s1 += 1) {
      float v__40v1 = 0x0p+0f;
      if ((((v__40k0 + ((((local1 * 8) + local0) + (v__40s1 * 64)) / 8)) < 20) & (((group0 * 8) + ((((local1 * 8) + local0) + (v__40s1 * 64)) % 8)) < 18))) {
        v__40v1 = s1[(((v__40k0 + ((((local1 * 8) + local0) + (v__40s1 * 64)) / 8)) * 18) + ((group0 * 8) + ((((local1 * 8) + local0) + (v__40s1 * 64)) % 8)))];
      }
      tile1[((((((local1 * 8) + local0) + (v__40s1 * 64)) / 8) * 9) + ((((local1 * 8) + local0) + (v__40s1 * 64)) % 8))] = v__40v1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int v__40kk = 0; v__40kk < min(32, (20 - v__40k0)); v__40kk += 1) {
      float v__40t0__0 = tile0[((v__40kk * 9) + local1)];
      float v__40t1__0 = tile1[((v__40kk * 9) + local0)];
      v__40acc0__0 = (v__40acc0__0 + (v__40t0__0 * v__40t1__0));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (((((group1 * 8) + local1) < 33) & (((group0 * 8) + local0) < 18))) {
    s3[((((group1 * 8) + local1) * 18) + ((group0 * 8) + local0))] = plaidml_relu_f32((v__40acc0__0 + s2[((group0 * 8) + local0)]));
  }
}

