// plaidml OpenCL C for golden gpu
#pragma OPENCL FP_CONTRACT ON
inline float plaidml_relu_f32(float x) { return x < 0 ? (float)0 : x; }

__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void k0_C(__global float* restrict s0, __global float* restrict s1, __global float* restrict s2, __global float* restrict s3) {
  const int tx = (int)get_local_id(0);
  const int ty = (int)get_local_id(1);
  const int tid = ty * 8 + tx;
  const int n0 = (int)get_group_id(0) * 8;
  const int m0 = (int)get_group_id(1) * 8;
  const int pn0 = ((int)0 + (n0 + tx + 0) * 1);
  const bool nv0 = n0 + tx + 0 < 18;
  const int pm0 = ((int)0 + (m0 + ty + 0) * 1);
  const bool mv0 = m0 + ty + 0 < 33;
  __local float tile0[32][9];
  __local float tile1[32][9];
  float acc_0_0 = (float)0;
  if (mv0 && nv0) acc_0_0 = 0x0p+0f;
  for (int k0 = 0; k0 < 20; k0 += 32) {
    for (int e = tid; e < 256; e += 64) {
      const int kk = e % 32, s = e / 32;
      float v = (float)0;
      if (k0 + kk < 20 && m0 + s < 33) {
        const int sk = ((int)0 + (k0 + kk) * 1);
        const int ss = ((int)0 + (m0 + s) * 1);
        if (1) v = s0[((ss * 20) + sk)];
      }
      tile0[kk][s] = v;
    }
    for (int e = tid; e < 256; e += 64) {
      const int kk = e / 8, s = e % 8;
      float v = (float)0;
      if (k0 + kk < 20 && n0 + s < 18) {
        const int sk = ((int)0 + (k0 + kk) * 1);
        const int ss = ((int)0 + (n0 + s) * 1);
        if (1) v = s1[((sk * 18) + ss)];
      }
      tile1[kk][s] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int kn = (int)min((int)32, (int)20 - k0);
    for (int kk = 0; kk < kn; ++kk) {
      const int pk = ((int)0 + (k0 + kk) * 1);
      const float t0_0 = tile0[kk][ty + 0];
      const float t1_0 = tile1[kk][tx + 0];
      acc_0_0 = (acc_0_0 + (t0_0 * t1_0));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (mv0 && nv0) {
    s3[((pm0 * 18) + pn0)] = plaidml_relu_f32((acc_0_0 + s2[pn0]));
  }
}

