// ch05_03 source check (no GPU): polynomialConstant must read its coefficients from constant
// memory. PTX names the memory space of every load: ld.const for a __constant__ array, ld.global
// for a __device__ array or a pointer to global memory. A kernel that reads a global copy is
// correct and, on GPUs whose L1 serves uniform loads well, as fast -- otherwise only Nsight
// Compute's load count (ConstantLoads, needs permission to read GPU counters) tells it apart.
#include "ptx_code.hpp"

#include "cudalab/testing.cuh"

namespace {

class ConstantCode : public cudalab::HostTest {};

TEST_F(ConstantCode, PolynomialConstantReadsTheCoefficientsFromConstantMemory) {
  const ptx_code::Kernel k = ptx_code::kernel(CUDALAB_STUDENT_PTX, {"_Z18polynomialConstant"});
  ASSERT_TRUE(k.found) << k.error;
  const int constant_loads = ptx_code::count(k, "ld.const"), global_loads = ptx_code::count(k, "ld.global");
  std::printf("[ CODE     ] polynomialConstant (PTX): %d constant-memory loads, %d global loads\n", constant_loads,
              global_loads);
  EXPECT_GT(constant_loads, 0) << "polynomialConstant reads nothing from constant memory (no ld.const in its "
                                  "PTX): are the coefficients in a __device__ array, or read through a pointer to "
                                  "global memory? Declare them `__constant__ float c_coef[kMaxCoefficients];` at "
                                  "file scope (source check of the compiled code, " CUDALAB_STUDENT_PTX ")";
  // x[i] is the one global load; 2 leaves room for a second one, as ConstantLoads does.
  EXPECT_LE(global_loads, 2) << "polynomialConstant has " << global_loads
                             << " global load instructions in its PTX; only x[i] should come from global "
                                "memory, every coefficient from the __constant__ array (source check of the "
                                "compiled code, " CUDALAB_STUDENT_PTX ")";
}

}  // namespace
