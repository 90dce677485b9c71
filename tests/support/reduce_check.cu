#include "reduce_check.cuh"

#include "cudalab/launch.cuh"
#include "cudalab/testing.cuh"

#include "cudalab/reference.hpp"

#include <sstream>
#include <vector>

namespace {
constexpr unsigned int kGuard = 4096;  // ints after the input and after the partial sums
constexpr int kGuardValue = 1 << 20;   // reading it into a sum makes the sum wrong
}  // namespace

std::string reduction_error(const ReduceCase &c, const ReduceLaunch &launch) {
  using cudalab::DeviceBuffer;
  const unsigned int n = c.n, grid = (n + c.chunk - 1) / c.chunk;
  if (cudalab::skipped_under_sanitizer(n)) return "";  // a SanitizeAll run: the smaller sizes suffice
  const std::string ctx =
      cudalab::context({{"n", n}, {"grid", grid}, {"seed", static_cast<long long>(c.seed)}}) + " " + c.shape;
  std::ostringstream msg;

  std::vector<int> input = cudalab::random_ints(n, -1000, 1000, c.seed);
  std::vector<int> guarded = input;
  guarded.resize(std::size_t(n) + kGuard, kGuardValue);
  DeviceBuffer<int> d_in, d_out;
  cudaError_t err = d_in.upload(guarded);
  if (err == cudaSuccess) err = d_out.allocate(std::size_t(grid) + kGuard);
  if (err == cudaSuccess) err = d_out.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);

  err = launch(d_in.get(), d_out.get(), n);
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();  // waits for child grids as well
  if (err != cudaSuccess) return cudalab::describe_error(err, c.name, __FILE__, __LINE__) + " (" + ctx + ")";

  std::vector<int> in_after, out;
  if ((err = d_in.download(&in_after)) != cudaSuccess || (err = d_out.download(&out)) != cudaSuccess)
    return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  for (std::size_t i = c.read_only_input ? 0 : n; i < in_after.size(); ++i) {
    if (in_after[i] == guarded[i]) continue;
    if (i < n)
      msg << c.name << " modified its input: g_idata[" << i << "] changed (" << ctx << ")";
    else
      msg << c.name << " wrote past the end of g_idata: element " << i << " (n = " << n << ") was changed (" << ctx
          << ")";
    return msg.str();
  }
  for (unsigned int i = 0; i < kGuard; ++i) {
    if (!cudalab::is_poison(out[std::size_t(grid) + i])) {
      msg << c.name << " wrote past the last partial sum: g_odata[" << grid + i << "] was written, but there are only "
          << grid << " partial sums (" << ctx << ")";
      return msg.str();
    }
  }
  out.resize(grid);
  const std::vector<long long> expected = cudalab::cpu::chunk_sums(input, c.chunk);
  ::testing::AssertionResult same = cudalab::equal_arrays(
      c.name, ctx + "; " + c.hint + (c.hint.empty() ? "" : "; ") +
                  "a partial sum off by a multiple of 1048576 means a read past element n-1",
      expected, out, "block");
  if (!same) return same.message();
  long long total = 0;
  for (int p : out) total += p;
  if (total != cudalab::cpu::sum(input)) {
    msg << c.name << ": total is " << total << ", expected " << cudalab::cpu::sum(input) << " (" << ctx << ")";
    return msg.str();
  }
  if (c.not_tree != ReduceCase::InPlaceTree::kAny && c.chunk > 0) {
    const std::string tree = shows_tree(c.name, c.not_tree, input, in_after, n, c.chunk);
    if (!tree.empty()) return tree + " (" + ctx + ")";
  }
  return "";
}

std::string shows_tree(const char *name, ReduceCase::InPlaceTree tree, const std::vector<int> &input,
                       const std::vector<int> &after, unsigned int n, unsigned int block) {
  using Tree = ReduceCase::InPlaceTree;
  if (tree == Tree::kAny || block < 8 || after.size() < n || input.size() < n) return "";
  const unsigned int full = n / block;  // blocks whose chunk is whole
  std::size_t checked = 0;
  for (unsigned int b = 0; b < full; ++b) {
    const std::size_t base = std::size_t(b) * block;
    for (unsigned int t = 0; t < block; ++t) {
      std::size_t partner = 0;
      if (tree == Tree::kNotInterleaved && t >= block / 4 && t < block / 2) {
        partner = base + t + block / 2;
      } else if (tree == Tree::kNotNeighbored && t % 4 == 2) {
        partner = base + t + 1;
      } else {
        continue;
      }
      if (static_cast<long long>(after[base + t]) != static_cast<long long>(input[base + t]) + input[partner]) return "";
      ++checked;
    }
  }
  if (checked == 0) return "";
  std::ostringstream msg;
  if (tree == Tree::kNotInterleaved)
    msg << name << " left reduceInterleaved's pairs in g_idata: in every block, element t + blockDim.x/2 was added "
        << "into element t (e.g. g_idata[" << block / 4 << "] = " << after[block / 4] << " = " << input[block / 4]
        << " + " << input[block / 4 + block / 2] << "); " << name << " pairs neighbours: the thread with index tid "
        << "adds element 2*stride*tid + stride into 2*stride*tid";
  else
    msg << name << " left neighbour pairs in g_idata: in every block, element i+1 was added into element i for "
        << "i = 2, 6, 10, ... (e.g. g_idata[2] = " << after[2] << " = " << input[2] << " + " << input[3] << "); "
        << name << " pairs element tid with tid + stride, the stride starting at blockDim.x/2";
  return msg.str();
}

std::string reduction_error(const char *name, const ReduceLaunch &launch, unsigned int n, unsigned int block,
                            unsigned int chunk, std::uint64_t seed) {
  const std::string c = std::to_string(chunk);
  return reduction_error({name, n, chunk, "block=" + std::to_string(block), seed,
                          "block b must sum elements [b*" + c + ", (b+1)*" + c + ")"},
                         launch);
}

std::string reduction_error(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block,
                            unsigned int chunk, std::uint64_t seed) {
  const unsigned int grid = (n + chunk - 1) / chunk;
  return reduction_error(
      name,
      [&](int *in, int *out, unsigned int count) {
        cudalab::launch(kernel, grid, block)(in, out, count);
        return cudaGetLastError();
      },
      n, block, chunk, seed);
}

void check_reduction(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block, unsigned int chunk,
                     std::uint64_t seed) {
  const std::string error = reduction_error(name, kernel, n, block, chunk, seed);
  if (!error.empty()) ADD_FAILURE() << error;
}

void check_reduction(const char *name, ReduceKernel kernel, unsigned int n, unsigned int block, std::uint64_t seed,
                     ReduceCase::InPlaceTree not_tree) {
  const unsigned int grid = (n + block - 1) / block;
  ReduceCase c{name, n, block, "block=" + std::to_string(block), seed,
               "block b must sum elements [b*" + std::to_string(block) + ", (b+1)*" + std::to_string(block) + ")"};
  c.not_tree = not_tree;
  const std::string error = reduction_error(c, [&](int *in, int *out, unsigned int count) {
    cudalab::launch(kernel, grid, block)(in, out, count);
    return cudaGetLastError();
  });
  if (!error.empty()) ADD_FAILURE() << error;
}
