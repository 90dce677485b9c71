// The program ConstantLoads.* runs under Nsight Compute: one launch of the handed-out
// polynomialGlobal (the test-side copy, polynomialGlobalBaseline) and one of polynomialConstant,
// 2^24 floats, 64 coefficients, block 256. Both results are checked on the device; a wrong result
// prints a reason and exits 1, so a wrong kernel earns no profile.
//
//   profile_target           run both kernels
//   profile_target --probe   print "[ CUDALAB  ] skipped: <why>" if there is no usable GPU
#include "baseline.cuh"
#include "constant_memory.cuh"
#include "cudalab/launch.cuh"
#include "poly_check.cuh"

#include <cstdio>
#include <cstring>

namespace {

/// "" when the last launch of @p kernel ran, else why not.
std::string launch_error(const char *kernel) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  return err == cudaSuccess ? "" : cudalab::describe_error(err, kernel, __FILE__, __LINE__);
}

}  // namespace

int main(int argc, char **argv) {
  if (!cudalab::driver_start(argc, argv, nullptr)) return 0;  // no GPU (skip line printed) or --probe
  const std::vector<float> coef = random_coefficients(kProfileCount, 5);
  const std::vector<float> x = random_inputs(kProfileN, 6);
  cudalab::DeviceBuffer<float> dx, dcoef, dy;
  if (dx.upload(x) != cudaSuccess || dcoef.upload(coef) != cudaSuccess ||
      dy.allocate(kProfileN + kGuard) != cudaSuccess || dy.poison() != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: profile target: cannot allocate device memory\n");
    return 1;
  }
  const cudaError_t set = setCoefficients(coef.data(), kProfileCount);
  if (set != cudaSuccess) {
    std::printf(
        "[ CUDALAB  ] reason: polynomialConstant is not profiled until it is correct: setCoefficients(h, %d) "
        "returned %s\n",
        kProfileCount, cudaGetErrorName(set));
    return 1;
  }
  const std::string ctx = cudalab::context({{"n", kProfileN}, {"count", kProfileCount}, {"block", kProfileBlock}});
  const unsigned int grid = blocks_for(kProfileN, kProfileBlock);

  cudalab::launch(polynomialGlobalBaseline, grid, kProfileBlock)(dx.get(), dcoef.get(), dy.get(), kProfileN,
                                                                 kProfileCount);
  std::string error = launch_error("polynomialGlobal (test-side baseline)");
  if (error.empty())
    error = device_check("polynomialGlobal (test-side baseline)", ctx, dx.get(), nullptr, dy.get(), kProfileN, coef,
                         kProfileCount, 1);
  if (!error.empty()) {
    std::printf("[ CUDALAB  ] reason: profile target: %s\n", error.c_str());
    return 1;
  }

  if (dy.poison() != cudaSuccess) {
    std::printf("[ CUDALAB  ] reason: profile target: cannot reset the output\n");
    return 1;
  }
  cudalab::launch(polynomialConstant, grid, kProfileBlock)(dx.get(), dy.get(), kProfileN, kProfileCount);
  error = launch_error("polynomialConstant");
  if (error.empty())
    error = device_check("polynomialConstant", ctx, dx.get(), nullptr, dy.get(), kProfileN, coef, kProfileCount, 1);
  if (!error.empty()) {
    std::printf("[ CUDALAB  ] reason: polynomialConstant is not profiled until it is correct: %s\n", error.c_str());
    return 1;
  }
  std::printf("profile target: polynomialConstant correct\n");
  return 0;
}
