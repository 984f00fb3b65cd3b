// plaidml OpenCL C for golden gpu
#pragma OPENCL FP_CONTRACT ON
inline float plaidml_relu_f32(float x) { return x < 0 ? (float)0 : x; }

__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void k0_C(__global float* restrict s0, __global float* restrict s1, __global float* restrict s2, __global float* restrict s3) {
  const int local0 = (int)get_local_id(0);
  const int group0 = (int)get_group_id(0);
  const int local1 = (int)get_local_id(1);
  const int group1 = (int)get_group_id(1);
  __local float tile0[288] __attribute__((aligned(16)));
  __local float tile1[288] __attribute__((aligned(16)));
  float v__40acc0__0 = 0x0p+0f;
  if (((((group1 * 8) + local1) < 33) & (((group0 * 8) + local0) < 18))) {
    v__40acc0__0 = 0x0p+0f;
  }
  float v__40p0__0 = 0x0p+0f;
  float v__40p0__1 = 0x0p+0f;
  float v__40p0__2 = 0x0p+0f;
  float v__40p0__3 = 0x0p+0f;
  v__40p0__0 = 0x0p+0f;
  if ((((((local1 * 8) + local0) % 32) < 20) & (((group1 * 8) + (((local1 * 8) + local0) / 32)) < 33))) {
    v__40p0__0 = s0[((((group1 * 8) + (((local1 * 8) + local0) / 32)) * 20) + (((local1 * 8) + local0) % 32))];
  }
  v__40p0__1 = 0x0p+0f;
  if (((((((local1 * 8) + local0) + 64) % 32) < 20) & (((group1 * 8) + ((((local1 * 8) + local0) + 64) / 32)) < 33))) {
    v__40p0__1 = s0[((((group1 * 8) + ((((local1 * 8) + local0) + 64) / 32)) * 20) + ((((local1 * 8) + local0) + 64) % 32))];
  }
  v__40p0__2 = 0x0p+0f;
  if (((((((local1 * 8) + local0) + 128) % 32) < 20) & (((group1 * 8) + ((((local1 * 8) + local0) + 128) / 32)) < 33))) {
    v__40p0__2 = s0[((((group1 * 8) + ((((local1 * 8) + local0) + 128) / 32)) * 20) + ((((local1 * 8) + local0) + 128) % 32))];
  }
  v__40p0__3 = 0x0p+0f;
  if (((((((local1 * 8) + local0) + 192) % 32) < 20) & (((group1 * 8) + ((((local1 * 8) + local0) + 192) / 32)) < 33))) {
    v__40p0__3 = s0[((((group1 * 8) + ((((local1 * 8) + local0) + 192) / 32)) * 20) + ((((local1 * 8) + local0) + 192) % 32))];
  }
  float v__40p1__0 = 0x0p+0f;
  float v__40p1__1 = 0x0p+0f;
  float v__40p1__2 = 0x0p+0f;
  float v__40p1__3 = 0x0p+0f;
  v__40p1__0 = 0x0p+0f;
  if ((((((local1 * 8) + local0) / 8) < 20) & (((group0 * 8) + (((local1 * 8) + local0) % 8)) < 18))) {
    v__40p1__0 = s1[(((((local1 * 8) + local0) / 8) * 18) + ((group0 * 8) + (((local1 * 8) + local0) % 8)))];
  }
  v__40p1__1 = 0x0p+0f;
  if (((((((local1 * 8) + local0) + 64) / 8) < 20) & (((group0 * 8) + ((((local1 * 8) + local0) + 64) % 8)) < 18))) {
    v__40p1__1 = s1[((((((local1 * 8) + local0) + 64) / 8) * 18) + ((group0 * 8) + ((((local1 * 8) + local0) + 64) % 8)))];
  }
  v__40p1__2 = 0x0p+0f;
  if (((((((local1 * 8) + local0) + 128) / 8) < 20) & (((group0 * 8) + ((((local1 * 8) + local0) + 128) % 8)) < 18))) {
    v__40p1__2 = s1[((((((local1 * 8) + local0) + 128) / 8) * 18) + ((group0 * 8) + ((((local1 * 8) + local0) + 128) % 8)))];
  }
  v__40p1__3 = 0x0p+0f;
  if (((((((local1 * 8) + local0) + 192) / 8) < 20) & (((group0 * 8) + ((((local1 * 8) + local0) + 192) % 8)) < 18))) {
    v__40p1__3 = s1[((((((local1 * 8) + local0) + 192) / 8) * 18) + ((group0 * 8) + ((((local1 * 8) + local0) + 192) % 8)))];
  }
  for (int v__40k0 = 0; v__40k0 < 20; v__40k0 += 32) {
    tile0[(((((local1 * 8) + local0) % 32) * 9) + (((local1 * 8) + local0) / 32))] = v__40p0__0;
    tile0[((((((local1 * 8) + local0) + 64) % 32) * 9) + ((((local1 * 8) + local0) + 64) / 32))] = v__40p0__1;
    tile0[((((((local1 * 8) + local0) + 128) % 32) * 9) + ((((local1 * 8) + local0) + 128) / 32))] = v__40p0__2;
    tile0[((((((local1 * 8) + local0) + 192) % 32) * 9) + ((((local1 * 8) + local0) + 192) / 32))] = v__40p0__3;
    tile1[(((((local1 * 8) + local0) / 8) * 9) + (((local1 * 8) + local0) % 8))] = v__40p1__0;
    tile1[((((((local1 * 8) + local0) + 64) / 8) * 9) + ((((local1 * 8) + local0) + 64) % 8))] = v__40p1__1;
    tile1[((((((local1 * 8) + local0) + 128) / 8) * 9) + ((((local1 * 8) + local0) + 128) % 8))] = v__40p1__2;
    tile1[((((((local1 * 8) + local0) + 192) / 8) * 9) + ((((local1 * 8) + local0) + 192) % 8))] = v__40p1__3;
    barrier(CLK_LOCAL_MEM_FENCE);
    v__40p0__0 = 0x0p+0f;
    if (((((v__40k0 + 32) + (((local1 * 8) + local0) % 32)) < 20) & (((group1 * 8) + (((local1 * 8) + local0) / 32)) < 33))) {
      v__40p0__0 = s0[((((group1 * 8) + (((local1 * 8) + local0) / 32)) * 20) + ((v__40k0 + 32) + (((local1 * 8) + local0) % 32)))];
    }
    v__40p0__1 = 0x0p+0f;
    if (((((v__40k0 + 32) + ((((local1 * 8) + local0) + 64) % 32)) < 20) & (((group1 * 8) + ((((local1 * 8) + local0) + 64) / 32)) < 33))) {
      v__40p0__1 = s0[((((group1 * 8) + ((((local1 * 8) + local0) + 64) / 32)) * 20) + ((v__40k0 + 32) + ((((local1 * 8) + local0) + 64) % 32)))];
    }
    v__40p0__2 = 0x0p+0f;
    if (((((v__40k0 + 32) + ((((local1 * 8) + local0) + 128) % 32)) < 20) & (((group1 * 8) + ((((local1 * 8) + local0) + 128) / 32)) < 33))) {
      v__40p0__2 = s0[((((group1 * 8) + ((((local1 * 8) + local0) + 128) / 32)) * 20) + ((v__40k0 + 32) + ((((local1 * 8) + local0) + 128) % 32)))];
    }
    v__40p0__3 = 0x0p+0f;
    if (((((v__40k0 + 32) + ((((local1 * 8) + local0) + 192) % 32)) < 20) & (((group1 * 8) + ((((local1 * 8) + local0) + 192) / 32)) < 33))) {
      v__40p0__3 = s0[((((group1 * 8) + ((((local1 * 8) + local0) + 192) / 32)) * 20) + ((v__40k0 + 32) + ((((local1 * 8) + local0) + 192) % 32)))];
    }
    v__40p1__0 = 0x0p+0f;
    if (((((v__40k0 + 32) + (((local1 * 8) + local0) / 8)) < 20) & (((group0 * 8) + (((local1 * 8) + local0) % 8)) < 18))) {
      v__40p1__0 = s1[((((v__40k0 + 32) + (((local1 * 8) + local0) / 8)) * 18) + ((group0 * 8) + (((local1 * 8) + local0) % 8)))];
    }
    v__40p1__1 = 0x0p+0f;
    if (((((v__40k0 + 32) + ((((local1 * 8) + local0) + 64) / 8)) < 20) & (((group0 * 8) + ((((local1 * 8) + local0) + 64) % 8)) < 18))) {
      v__40p1__1 = s1[((((v__40k0 + 32) + ((((local1 * 8) + local0) + 64) / 8)) * 18) + ((group0 * 8) + ((((local1 * 8) + local0) + 64) % 8)))];
    }
    v__40p1__2 = 0x0p+0f;
    if (((((v__40k0 + 32) + ((((local1 * 8) + local0) + 128) / 8)) < 20) & (((group0 * 8) + ((((local1 * 8) + local0) + 128) % 8)) < 18))) {
      v__40p1__2 = s1[((((v__40k0 + 32) + ((((local1 * 8) + local0) + 128) / 8)) * 18) + ((group0 * 8) + ((((local1 * 8) + local0) + 128) % 8)))];
    }
    v__40p1__3 = 0x0p+0f;
    if (((((v__40k0 + 32) + ((((local1 * 8) + local0) + 192) / 8)) < 20) & (((group0 * 8) + ((((local1 * 8) + local0) + 192) % 8)) < 18))) {
      v__40p1__3 = s1[((((v__40k0 + 32) + ((((local1 * 8) + local0) + 192) / 8)) * 18) + ((group0 * 8) + ((((local1 * 8) + local0) + 192) % 8)))];
    }
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

