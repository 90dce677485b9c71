/// @file parallelism.cu
/// @brief Lab ch03_09: a validating launcher and a block-shape heuristic (see README.md and
/// parallelism.cuh).
#include "parallelism.cuh"

#include <cstddef>
#include <sstream>

__global__ void sumMatrixOnGPU2D(const float *A, const float *B, float *C, int nx, int ny) {
  // BEGIN SOLUTION
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix < nx && iy < ny) {
    const std::size_t idx = std::size_t(iy) * nx + ix;
    C[idx] = A[idx] + B[idx];
  }
  // STUB: // TODO(ch03_09): the seeds' kernel (your ch03_07 one): ix, iy from the block and
  // STUB: // thread indices; if inside the matrix, C[idx] = A[idx] + B[idx], idx in std::size_t.
  // END SOLUTION
}

cudaError_t launch_limits(int device, LaunchLimits *limits) {
  LaunchLimits l;
  // BEGIN SOLUTION
  const struct {
    int *field;
    cudaDeviceAttr attr;
  } table[] = {{&l.max_threads_per_block, cudaDevAttrMaxThreadsPerBlock},
               {&l.max_block[0], cudaDevAttrMaxBlockDimX},
               {&l.max_block[1], cudaDevAttrMaxBlockDimY},
               {&l.max_block[2], cudaDevAttrMaxBlockDimZ},
               {&l.max_grid[0], cudaDevAttrMaxGridDimX},
               {&l.max_grid[1], cudaDevAttrMaxGridDimY},
               {&l.max_grid[2], cudaDevAttrMaxGridDimZ},
               {&l.warp_size, cudaDevAttrWarpSize},
               {&l.sm_count, cudaDevAttrMultiProcessorCount},
               {&l.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor}};
  for (const auto &t : table) {
    cudaError_t err = cudaDeviceGetAttribute(t.field, t.attr, device);
    if (err != cudaSuccess) return err;
  }
  // STUB: // TODO(ch03_09): every field from cudaDeviceGetAttribute (cudaDevAttrMaxThreadsPerBlock,
  // STUB: // cudaDevAttrMaxBlockDimX/Y/Z, cudaDevAttrMaxGridDimX/Y/Z, cudaDevAttrWarpSize,
  // STUB: // cudaDevAttrMultiProcessorCount, cudaDevAttrMaxThreadsPerMultiProcessor); return the first error.
  // STUB: (void)device;
  // END SOLUTION
  *limits = l;
  return cudaSuccess;
}

cudaError_t check_configuration(const LaunchLimits &limits, dim3 grid, dim3 block, std::string *why) {
  // BEGIN SOLUTION
  std::ostringstream os;
  const unsigned b[3] = {block.x, block.y, block.z}, g[3] = {grid.x, grid.y, grid.z};
  const char *axis = "xyz";
  const long long threads = static_cast<long long>(block.x) * block.y * block.z;
  for (int i = 0; i < 3 && os.tellp() == 0; ++i) {
    if (b[i] == 0)
      os << "blockDim." << axis[i] << " is 0: every dimension must be at least 1";
    else if (g[i] == 0)
      os << "gridDim." << axis[i] << " is 0: every dimension must be at least 1";
  }
  if (os.tellp() == 0 && threads > limits.max_threads_per_block)
    os << "block (" << block.x << "," << block.y << "," << block.z << ") has " << threads
       << " threads, more than the device's limit of " << limits.max_threads_per_block << " threads per block";
  for (int i = 0; i < 3 && os.tellp() == 0; ++i) {
    if (b[i] > unsigned(limits.max_block[i]))
      os << "blockDim." << axis[i] << " = " << b[i] << " exceeds the device's limit of " << limits.max_block[i];
    else if (g[i] > unsigned(limits.max_grid[i]))
      os << "gridDim." << axis[i] << " = " << g[i] << " exceeds the device's limit of " << limits.max_grid[i]
         << " blocks";
  }
  if (os.tellp() == 0) return cudaSuccess;
  if (why) *why = "invalid configuration: " + os.str();
  return cudaErrorInvalidConfiguration;
  // STUB: // TODO(ch03_09): return cudaErrorInvalidConfiguration with *why naming the value and the
  // STUB: // limit ("block (256,8,1) has 2048 threads, more than the device's limit of 1024 threads per
  // STUB: // block") when: a dimension is 0, block.x * block.y * block.z > max_threads_per_block, or a
  // STUB: // block or grid dimension exceeds its own limit. Otherwise cudaSuccess.
  // STUB: (void)limits;
  // STUB: (void)grid;
  // STUB: (void)block;
  // STUB: (void)why;
  // STUB: return cudaErrorNotSupported;
  // END SOLUTION
}

cudaError_t launch_sum_matrix(const LaunchLimits &limits, const float *A, const float *B, float *C, int nx, int ny,
                              dim3 block, std::string *why) {
  // BEGIN SOLUTION
  const dim3 grid = grid_for(nx, ny, block);
  cudaError_t err = check_configuration(limits, grid, block, why);
  if (err != cudaSuccess) return err;
  sumMatrixOnGPU2D<<<grid, block>>>(A, B, C, nx, ny);
  err = cudaGetLastError();
  if (err != cudaSuccess && why) *why = std::string("launch of sumMatrixOnGPU2D failed: ") + cudaGetErrorString(err);
  return err;
  // STUB: // TODO(ch03_09): grid = grid_for(nx, ny, block); check_configuration first (return its
  // STUB: // error, launch nothing); then launch sumMatrixOnGPU2D and return cudaGetLastError().
  // STUB: (void)limits, (void)A, (void)B, (void)C, (void)nx, (void)ny, (void)block, (void)why;
  // STUB: return cudaErrorNotSupported;
  // END SOLUTION
}

dim3 pick_block_shape(const LaunchLimits &limits, int nx, int ny) {
  // BEGIN SOLUTION
  // Memory-bound kernel. Along x: rows of at least 16 floats (64 B = two whole 32-byte sectors
  // per row, see ch03_08), and as little padding past the row's end as possible -- a 100-float
  // row in 128-wide blocks leaves 28 % of the threads idle, in 16-wide blocks 12 %. Among shapes
  // that pad about equally, the widest up to 256 threads. Then 256 threads per block in all.
  const unsigned target = 256;
  double best_pad = 1e30;
  for (unsigned w = 16; w <= target; w *= 2) {
    const double pad = double((nx + w - 1) / w * w) / nx;
    if (pad < best_pad) best_pad = pad;
  }
  unsigned bx = 16;
  for (unsigned w = 16; w <= target; w *= 2)
    if (double((nx + w - 1) / w * w) / nx <= best_pad + 0.03) bx = w;
  unsigned by = target / bx;
  // Tall matrices: gridDim.y is limited (65535), so a block must cover enough rows. Keep about
  // `target` threads by narrowing x, down to 16 floats (two whole sectors): on 64 x 2000003 the
  // H100 and H200 run (16,32) about 5 % faster than (32,32).
  const long long max_gy = limits.max_grid[1] > 0 ? limits.max_grid[1] : 65535;
  const unsigned need_y = unsigned((ny + max_gy - 1) / max_gy);
  while (by < need_y) by *= 2;
  while (bx > 16 && bx * by > target) bx /= 2;
  // Still too many threads (past 64 x 65535 rows, by had to pass 64): narrow the block further,
  // below 16 floats if need be -- a launch that runs beats whole sectors.
  while (bx * by > unsigned(limits.max_threads_per_block) && bx > 1) bx /= 2;
  return dim3(bx, by);
  // STUB: // TODO(ch03_09): pick (bx, by) for this matrix. Think about: whole sectors along x
  // STUB: // (section 3.8), threads left idle past the end of short rows, enough blocks to fill every
  // STUB: // SM, the grid.y limit for tall matrices, and the threads-per-block limit. Measure with the demo.
  // STUB: (void)limits, (void)nx, (void)ny;
  // STUB: return dim3(0, 0, 0);
  // END SOLUTION
}
