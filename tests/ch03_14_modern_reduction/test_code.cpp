// ch03_14 checks of the compiled code (no GPU needed): the two kernels reduce their warps with
// shuffles, as the lab teaches. A block-wide shared-memory tree gives the same sums and, at 70 %
// of the copy bandwidth, the same speed, and racecheck finds no race in a correct tree; the PTX of
// your modern_reduction.cu (compiled by the build, CUDALAB_STUDENT_PTX) tells them apart:
//  * warp-level instructions: shfl.sync (__shfl_down_sync, __shfl_xor_sync, cg::reduce) or
//    redux.sync (cg::reduce and __reduce_add_sync on sm_80+);
//  * reduceShuffle8's static shared memory holds the warp sums, not one int per thread: at most
//    1024 bytes (a tree over a 1024-thread block needs 4096).
#include "ptx_code.hpp"

#include "cudalab/testing.cuh"

#include <cstdio>
#include <string>

namespace {

/// Bytes of the .shared arrays a kernel declares (".shared .align 4 .b8 name[128];").
int shared_bytes(const ptx_code::Kernel &k) {
  int bytes = 0;
  for (const std::string &decl : k.declared) {
    const std::size_t open = decl.rfind('['), close = decl.rfind(']');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    int count = std::stoi(decl.substr(open + 1, close - open - 1));
    if (decl.find(".b16") != std::string::npos || decl.find(".u16") != std::string::npos ||
        decl.find(".s16") != std::string::npos)
      count *= 2;
    else if (decl.find(".b32") != std::string::npos || decl.find(".u32") != std::string::npos ||
             decl.find(".s32") != std::string::npos || decl.find(".f32") != std::string::npos)
      count *= 4;
    else if (decl.find(".b64") != std::string::npos || decl.find(".u64") != std::string::npos ||
             decl.find(".s64") != std::string::npos || decl.find(".f64") != std::string::npos)
      count *= 8;
    bytes += count;
  }
  return bytes;
}

class ModernCode : public cudalab::HostTest {};

TEST_F(ModernCode, Shuffle8ReducesWithWarpShuffles) {
  const ptx_code::Kernel k = ptx_code::kernel(CUDALAB_STUDENT_PTX, {"_Z14reduceShuffle8"});
  ASSERT_TRUE(k.found) << k.error;
  const int warp = ptx_code::warp_level(k), bytes = shared_bytes(k);
  std::printf("[ CODE     ] reduceShuffle8 (PTX): %d warp-level instructions, %d bytes of static shared memory\n", warp,
              bytes);
  EXPECT_GT(warp, 0) << "reduceShuffle8 has no shuffle (no shfl.sync or redux.sync in its PTX): reduce each warp "
                        "with warpReduceSum (__shfl_down_sync), not a shared-memory tree. Check of the compiled "
                        "code, " CUDALAB_STUDENT_PTX;
  EXPECT_LE(bytes, 1024) << "reduceShuffle8 declares " << bytes
                         << " bytes of shared memory: it needs only the warp sums (at most 32 ints, 128 bytes), "
                            "not one int per thread -- the warps reduce in registers with shuffles. Check of the "
                            "compiled code, " CUDALAB_STUDENT_PTX;
}

TEST_F(ModernCode, ModernReducesWarpsWithShuffles) {
  const ptx_code::Kernel k = ptx_code::kernel(CUDALAB_STUDENT_PTX, {"_Z12reduceModern"});
  ASSERT_TRUE(k.found) << k.error;
  const int warp = ptx_code::warp_level(k);
  std::printf("[ CODE     ] reduceModern (PTX): %d warp-level instructions\n", warp);
  EXPECT_GT(warp, 0) << "reduceModern has no shuffle (no shfl.sync or redux.sync in its PTX): reduce each warp "
                        "with cg::reduce or warpReduceSum before the block's one atomicAdd. Check of the compiled "
                        "code, " CUDALAB_STUDENT_PTX;
}

}  // namespace
