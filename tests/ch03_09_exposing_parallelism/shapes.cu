#include "shapes.cuh"

#include <cstddef>
#include <sstream>

LaunchLimits h100_limits() {
  LaunchLimits l;
  l.max_threads_per_block = 1024;
  l.max_block[0] = 1024, l.max_block[1] = 1024, l.max_block[2] = 64;
  l.max_grid[0] = 2147483647, l.max_grid[1] = 65535, l.max_grid[2] = 65535;
  l.warp_size = 32;
  l.sm_count = 132;
  l.max_threads_per_sm = 2048;
  return l;
}

cudaError_t runtime_limits(LaunchLimits *l) {
  cudaError_t err = cudaSuccess;
  auto get = [&](int *v, cudaDeviceAttr a) {
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(v, a, 0);
  };
  get(&l->max_threads_per_block, cudaDevAttrMaxThreadsPerBlock);
  get(&l->max_block[0], cudaDevAttrMaxBlockDimX);
  get(&l->max_block[1], cudaDevAttrMaxBlockDimY);
  get(&l->max_block[2], cudaDevAttrMaxBlockDimZ);
  get(&l->max_grid[0], cudaDevAttrMaxGridDimX);
  get(&l->max_grid[1], cudaDevAttrMaxGridDimY);
  get(&l->max_grid[2], cudaDevAttrMaxGridDimZ);
  get(&l->warp_size, cudaDevAttrWarpSize);
  get(&l->sm_count, cudaDevAttrMultiProcessorCount);
  get(&l->max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor);
  return err;
}

std::vector<dim3> seeds_sweep() {
  return {dim3(32, 32), dim3(32, 16), dim3(16, 32), dim3(16, 16), dim3(64, 2),  dim3(64, 4),  dim3(64, 8), dim3(128, 2),
          dim3(128, 4), dim3(128, 8), dim3(256, 2), dim3(256, 4), dim3(256, 8), dim3(128, 1), dim3(256, 1)};
}

std::vector<dim3> candidate_shapes() {
  std::vector<dim3> out;
  for (unsigned bx = 16; bx <= 1024; bx *= 2)
    for (unsigned by = 1; by <= 64; by *= 2)
      if (bx * by >= 64 && bx * by <= 1024) out.push_back(dim3(bx, by));
  return out;
}

std::string invalid_reason(const LaunchLimits &l, int nx, int ny, dim3 b) {
  std::ostringstream os;
  const long long threads = static_cast<long long>(b.x) * b.y * b.z;
  if (b.x == 0 || b.y == 0 || b.z == 0) {
    os << "a block dimension is 0";
    return os.str();
  }
  const dim3 g((nx + b.x - 1) / b.x, (ny + b.y - 1) / b.y);
  if (threads > l.max_threads_per_block)
    os << threads << " threads per block > " << l.max_threads_per_block;
  else if (b.x > unsigned(l.max_block[0]) || b.y > unsigned(l.max_block[1]) || b.z > unsigned(l.max_block[2]))
    os << "a block dimension exceeds its limit";
  else if (g.x > unsigned(l.max_grid[0]))
    os << "gridDim.x = " << g.x << " > " << l.max_grid[0];
  else if (g.y > unsigned(l.max_grid[1]))
    os << "gridDim.y = " << g.y << " > " << l.max_grid[1];
  return os.str();
}

__global__ void sumMatrixReference(const float *A, const float *B, float *C, int nx, int ny) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix < nx && iy < ny) {
    const std::size_t idx = std::size_t(iy) * nx + ix;
    C[idx] = A[idx] + B[idx];
  }
}
