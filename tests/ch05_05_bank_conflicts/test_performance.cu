// ch05_05 performance, side by side in one process (median of 31 after warm-up):
//  - transposeSharedPadded against transposeShared (the same kernel with 32-way bank conflicts on
//    its tile reads), on a ragged square-ish matrix whose input and output together fill a
//    quarter of this GPU's L2: the data stays in L2 between runs, so shared memory, not DRAM, is
//    what limits both kernels (on DRAM-sized data a GPU with a lot of shared-memory bandwidth per
//    byte of DRAM bandwidth hides the conflicts: see the README's questions);
//  - transposeSharedPadded against the reference solution's transposeSharedPadded, compiled into
//    the tests (machine code only), on a ragged 8191 x 8197 float matrix (256 MiB read, 256 MiB
//    written per run); where the reference cannot run, against the tests' 2D copy kernel of the
//    same bytes and launch shape.
#include "bank_conflicts.cuh"
#include "cudalab/launch.cuh"
#include "cudalab/reference_kernels.hpp"
#include "cudalab/testing.cuh"
#include "transpose_check.cuh"

#include <algorithm>
#include <cmath>
#include <string>

namespace {

constexpr int kRows = 8191, kCols = 8197;  // not multiples of 32: the edge tiles are partial

class TransposePerformance : public cudalab::GpuTest {
 protected:
  /// Uploads the input and checks @p name on it (a kernel is not timed until it is correct).
  /// The output has @p guard poisoned floats after it (TransposeData::sample_guard).
  bool prepare(const char *name, void (*launch)(const float *, float *, int, int, cudaStream_t), int rows = kRows,
               int cols = kCols, int guard = kGuard) {
    if (!data_ready_) {
      cudaError_t err = data_.init(rows, cols, seed(), guard);
      if (err != cudaSuccess) {
        ADD_FAILURE() << cudalab::describe_error(err, "allocating 2 x 256 MiB", __FILE__, __LINE__);
        return false;
      }
      data_ready_ = true;
    }
    const std::string error =
        data_.check(name, [&](const float *in, float *out, int r, int c) { launch(in, out, r, c, 0); });
    if (!error.empty()) {
      ADD_FAILURE() << name << " is not timed until it is correct: " << error;
      return false;
    }
    return true;
  }
  /// Timing options; each test adds the check of transposeSharedPadded (every timed run gets one
  /// changed input element and a poisoned output, and a random share of them is checked).
  static cudalab::TimingOptions options() {
    cudalab::TimingOptions opts;
    opts.reps = 31;
    return opts;
  }
  /// @brief The reference solution's transposeSharedPadded, launched as the lab's
  /// launch_transpose_padded launches it (ceil(cols / 32) x ceil(rows / 32) blocks of 32 x 8
  /// threads, no dynamic shared memory, the default stream), after one trial run on this test's
  /// data checked like the student's kernel (prepare() first). Empty, with the reason in @p why,
  /// where it cannot run here or its output is wrong (the test then grades against its baseline).
  TransposeLaunch reference_padded(std::string *why) {
    using Kernel = cudalab::RefKernel<const float *, float *, int, int>;
    auto as_launch = [](const Kernel &kernel) -> TransposeLaunch {
      return [kernel](const float *in, float *out, int rows, int cols) {
        const dim3 grid((cols + 31) / 32, (rows + 31) / 32), block(32, 8);
        kernel.launch(grid, block, 0, nullptr, in, out, rows, cols);  // an error: cudaGetLastError()
      };
    };
    const Kernel kernel = cudalab::checked_reference_kernel(
        transposeSharedPadded, "_Z21transposeSharedPaddedPKfPfii",
        [&](const Kernel &k) { return data_.check("the reference solution's transposeSharedPadded", as_launch(k)); });
    *why = kernel.why_not();
    if (!kernel) return {};
    return as_launch(kernel);
  }

  TransposeData data_;
  bool data_ready_ = false;
};

TEST_F(TransposePerformance, PaddedTileIsClearlyFasterThanTheConflictedOne) {
  // Input + output = L2 / 4: rows * (rows + 6) floats each, rows odd (never a multiple of 32).
  const double floats = double(device().l2_bytes > 0 ? device().l2_bytes : (4u << 20)) / 4 / 2 / sizeof(float);
  const int rows = static_cast<int>(std::sqrt(floats)) | 1, cols = rows + 6;
  // One L2-resident transpose runs for 10-20 us, about as long as the gap between a timing event
  // and the launch after it; each timed sample is therefore several launches back to back
  // (TimingOptions::launches), so the GPU runs them without idling in between and the ratio is the
  // kernels' own. The times and bytes reported are per launch.
  // At least the work of the H100's calibrated sample (10 x 1281 x 1287 floats): more launches
  // where the L2, and so the matrix, is smaller (120 on a 4 MB T4), never fewer than 10.
  const int launches = std::max(10, static_cast<int>(std::ceil(16e6 / (double(rows) * cols))));
  const int guard = TransposeData::sample_guard(launches);
  if (!prepare("transposeShared", launch_transpose_shared, rows, cols, guard)) return;
  if (!prepare("transposeSharedPadded", launch_transpose_padded, rows, cols, guard)) return;
  cudalab::TimingOptions opts = options();
  opts.launches = launches;
  // Each launch of transposeSharedPadded in a timed run writes 4 KiB further on than the one before
  // (sample_output), so what every launch wrote can be checked afterwards.
  opts.check = data_.sample_check("transposeSharedPadded", launches);
  opts.stop_when_clear_of = cudalab::threshold("padded_vs_shared");  // sampling stops once clear of it
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { launch_transpose_shared(data_.input(), data_.output(), rows, cols); },
      [&] { launch_transpose_padded(data_.input(), data_.sample_output(), rows, cols); }, opts);
  const std::string shape = std::to_string(rows) + "x" + std::to_string(cols) + " (L2-resident)";
  cudalab::expect_speedup({"transposeSharedPadded " + shape, "your transposeShared (tile[32][32]) " + shape, cmp,
                           cudalab::threshold("padded_vs_shared"), "padded_vs_shared", data_.bytes()});
}

// Where the reference kernels can run: your transposeSharedPadded against the reference solution's,
// about 1.0 for a correct kernel on any GPU. Otherwise the same-structure baseline: out[r][c] =
// in[r][c] with the transposes' grid, 32 x 8 blocks and four elements per thread; its reads and
// writes are both coalesced, so it is what a transpose whose shared tile costs nothing would reach.
// The fraction of the copy bandwidth is printed too.
TEST_F(TransposePerformance, PaddedTileKeepsUpWithATiledCopy) {
  if (!prepare("transposeSharedPadded", launch_transpose_padded)) return;
  std::string why;
  if (const TransposeLaunch reference = reference_padded(&why)) {
    cudalab::TimingOptions opts = options();
    opts.check = data_.sample_check("transposeSharedPadded");
    opts.stop_when_clear_of = cudalab::threshold("padded_vs_reference");  // sampling stops once clear of it
    cudalab::Comparison cmp =
        cudalab::compare_kernels([&] { reference(data_.input(), data_.output(), kRows, kCols); },
                                 [&] { launch_transpose_padded(data_.input(), data_.output(), kRows, kCols); }, opts);
    cudalab::expect_speedup({"transposeSharedPadded 8191x8197", "the reference solution's transposeSharedPadded", cmp,
                             cudalab::threshold("padded_vs_reference"), "padded_vs_reference", data_.bytes()});
    return;
  }
  if (const std::string f = cudalab::reference_fallback("transposeSharedPadded", "the 2D copy kernel", why); !f.empty())
    GTEST_FAIL() << f;
  const dim3 grid = transpose_grid(kRows, kCols), block = transpose_block();
  cudalab::TimingOptions opts = options();
  opts.check = data_.sample_check("transposeSharedPadded");
  opts.stop_when_clear_of = cudalab::threshold("padded_vs_copy");
  cudalab::Comparison cmp = cudalab::compare_kernels(
      [&] { cudalab::launch(copyTiledBaseline, grid, block)(data_.input(), data_.output(), kRows, kCols); },
      [&] { launch_transpose_padded(data_.input(), data_.output(), kRows, kCols); }, opts);
  cudalab::expect_speedup({"transposeSharedPadded 8191x8197",
                           "2D copy kernel, same grid and 32x8 blocks, 4 floats per thread", cmp,
                           cudalab::threshold("padded_vs_copy"), "padded_vs_copy", data_.bytes()});
}

}  // namespace
