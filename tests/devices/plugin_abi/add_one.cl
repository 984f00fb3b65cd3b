// The plugin-ABI suite's OpenCL C artifact (and the null device's, which reads none of it).
__kernel void add_one(__global const float* a, __global float* b) {
  size_t i = get_global_id(0);
  b[i] = a[i] + 1.0f;
}
