// ch03_12 check of the compiled code (no GPU needed): the template's steps are decided by the
// compiler. On the H100 the template and the runtime-blockDim kernel run at the same speed (see
// README.md), so a copy of the runtime version into the template passes every timed and value
// test; its instantiations are then the same code five times. The PTX of your templates.cu
// (compiled by the build, CUDALAB_STUDENT_PTX) shows the difference: in reduceCompleteUnroll<1024>
// the steps 1024, 512, 256 and 128 each read shared memory, in reduceCompleteUnroll<64> the
// compiler has removed all four -- so the 1024 instantiation has at least four more shared-memory
// loads than the 64 one. A runtime `if (blockDim.x >= S && ...)` step stays in every instantiation.
#include "ptx_code.hpp"

#include "cudalab/testing.cuh"

#include <cstdio>
#include <string>

namespace {

class TemplateCode : public cudalab::HostTest {};

TEST_F(TemplateCode, StepsAreDecidedAtCompileTime) {
  int loads[2] = {0, 0};
  const unsigned int sizes[2] = {64, 1024};
  for (int i = 0; i < 2; ++i) {
    const std::string inst = "ILj" + std::to_string(sizes[i]) + "E";
    const ptx_code::Kernel k = ptx_code::kernel(CUDALAB_STUDENT_PTX, {"_Z20reduceCompleteUnroll", inst});
    ASSERT_TRUE(k.found) << k.error;
    loads[i] = ptx_code::shared_loads(k);
    std::printf(
        "[ CODE     ] reduceCompleteUnroll<%u> (PTX): %d shared-memory loads, %d block barriers, %zu "
        "instructions\n",
        sizes[i], loads[i], ptx_code::block_barriers(k), k.opcodes.size());
  }
  EXPECT_GE(loads[1] - loads[0], 4)
      << "reduceCompleteUnroll<1024> has " << loads[1] << " shared-memory loads and reduceCompleteUnroll<64> "
      << loads[0]
      << ": the four steps 1024 ... 128 are still in the 64 instantiation, so they are decided at run time. Write "
         "them as `if (iBlockSize >= 1024 && tid < 512) ...` with the template parameter, not blockDim.x. Check of "
         "the compiled code, " CUDALAB_STUDENT_PTX;
}

}  // namespace
