// ch05_02 source check (no GPU): adjacentDifferenceShared must take the left neighbour from
// on-chip storage -- the tile in shared memory (ld.shared) or, in the warp-shuffle alternative,
// another lane's register (shfl.sync). The handed-out naive kernel submitted in its place has
// neither: it is correct and about as fast (its second read hits L1), and otherwise only Nsight
// Compute's sector count tells it apart, which needs permission to read GPU counters.
#include "ptx_code.hpp"

#include "cudalab/testing.cuh"

namespace {

class SharedCode : public cudalab::HostTest {};

TEST_F(SharedCode, NeighbourComesFromSharedMemoryOrAShuffle) {
  const ptx_code::Kernel k = ptx_code::kernel(CUDALAB_STUDENT_PTX, {"_Z24adjacentDifferenceShared"});
  ASSERT_TRUE(k.found) << k.error;
  const int shared_loads = ptx_code::count(k, "ld.shared"), shuffles = ptx_code::count(k, "shfl.sync");
  const int global_loads = ptx_code::count(k, "ld.global");
  std::printf("[ CODE     ] adjacentDifferenceShared (PTX): %d shared loads, %d shuffles, %d global loads\n",
              shared_loads, shuffles, global_loads);
  EXPECT_GT(shared_loads + shuffles, 0)
      << "adjacentDifferenceShared reads no shared memory (no ld.shared in its PTX) and shuffles nothing: "
         "the left neighbour still comes from a second global load, as in adjacentDifferenceNaive. Load the "
         "tile into `extern __shared__ int s_data[]`, __syncthreads(), and read s_data[threadIdx.x - 1] "
         "(source check of the compiled code, " CUDALAB_STUDENT_PTX ")";
}

}  // namespace
