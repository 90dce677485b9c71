// ch03_01 demo: how a block becomes warps, for the seeds' 40x2 block or any shape you give.
//
//   ./ch03_01_warps_demo [x y z]        (default 40 2 1)
//
// Prints, from your recordWarpLayout, which threads sit in which lanes of which warp; checks the
// lane ids against the hardware's own (%laneid) and shows each warp's active-lane mask
// (__activemask()); then the registers allocated to the block versus what its threads use.
#include "warps.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/device.cuh"

#include <cstdio>
#include <cstdlib>
#include <vector>

/// What the hardware says about each thread: its lane (%laneid) and its warp's active lanes.
__global__ void hardwareLanes(unsigned *laneid, unsigned *mask) {
  const int linear = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  laneid[linear] = lane;
  mask[linear] = __activemask();  // at kernel entry, before any branch: the warp's live lanes
}

int main(int argc, char **argv) {
  dim3 block(40, 2, 1);
  if (argc == 4) block = dim3(std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]));
  const int tpb = block.x * block.y * block.z;
  if (tpb < 1 || tpb > 1024) {
    std::fprintf(stderr, "a block has 1 to 1024 threads\n");
    return EXIT_FAILURE;
  }
  cudalab::DeviceInfo dev;
  CUDALAB_CHECK(cudalab::query_device(0, &dev));
  std::printf("%s\n\n", cudalab::describe_device(dev).c_str());

  cudalab::DeviceBuffer<WarpSlot> slots;
  cudalab::DeviceBuffer<unsigned> lanes, masks;
  CUDALAB_CHECK(slots.allocate(tpb));
  CUDALAB_CHECK(slots.poison());
  CUDALAB_CHECK(lanes.allocate(tpb));
  CUDALAB_CHECK(masks.allocate(tpb));
  recordWarpLayout<<<1, block>>>(slots.get());
  CUDALAB_CHECK_LAUNCH("recordWarpLayout");
  hardwareLanes<<<1, block>>>(lanes.get(), masks.get());
  CUDALAB_CHECK_LAUNCH("hardwareLanes");
  std::vector<WarpSlot> s;
  std::vector<unsigned> hw_lane, hw_mask;
  CUDALAB_CHECK(slots.download(&s));
  CUDALAB_CHECK(lanes.download(&hw_lane));
  CUDALAB_CHECK(masks.download(&hw_mask));

  const int warps = warps_per_block(block);
  std::printf("block (%u,%u,%u) = %d threads -> warps_per_block %d (%d lanes), inactive_threads %d\n\n", block.x,
              block.y, block.z, tpb, warps, warps * kWarpSize, inactive_threads(block));
  int lane_mismatch = 0;
  for (int i = 0; i < tpb; ++i)
    if (s[i].lane != static_cast<int>(hw_lane[i])) ++lane_mismatch;
  for (int w = 0; w * kWarpSize < tpb; ++w) {
    std::printf("warp %d  __activemask() = 0x%08x  lanes:", w, hw_mask[w * kWarpSize]);
    // Runs of lanes whose threads are consecutive in x on one row (y, z).
    int lane = 0;
    while (lane < kWarpSize && w * kWarpSize + lane < tpb) {
      const WarpSlot &a = s[w * kWarpSize + lane];
      int end = lane;
      while (end + 1 < kWarpSize && w * kWarpSize + end + 1 < tpb) {
        const WarpSlot &b = s[w * kWarpSize + end + 1];
        if (b.y != a.y || b.z != a.z || b.x != a.x + (end + 1 - lane)) break;
        ++end;
      }
      const WarpSlot &e = s[w * kWarpSize + end];
      std::printf("  %d-%d=(%d..%d,%d,%d)", lane, end, a.x, e.x, a.y, a.z);
      lane = end + 1;
    }
    if (lane < kWarpSize) std::printf("  %d-31=inactive", lane);
    std::printf("\n");
  }
  std::printf("\nlane ids from recordWarpLayout vs the hardware's %%laneid: %s\n",
              lane_mismatch == 0 ? "all equal" : "DIFFERENT (check your kernel)");

  cudaFuncAttributes fa;
  CUDALAB_CHECK(cudaFuncGetAttributes(&fa, recordWarpLayout));
  const int regs = fa.numRegs;
  std::printf(
      "recordWarpLayout uses %d registers/thread: registers_per_block = %d allocated, %d used by the %d "
      "threads (%d more: inactive lanes and the 256-register unit)\n",
      regs, registers_per_block(block, regs), regs * tpb, tpb, registers_per_block(block, regs) - regs * tpb);
  return EXIT_SUCCESS;
}
