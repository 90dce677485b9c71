#include "cudalab/data.hpp"
#include "cudalab/reference.hpp"
#include "cudalab/settings.hpp"

#include <cstdlib>
#include <random>

namespace cudalab {

std::uint64_t choose_seed() {
  if (const char *env = cudalab::setting("CUDALAB_SEED"); env && *env) return std::strtoull(env, nullptr, 10);
  std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32 | rd()) % 1000000007ull;
}

std::vector<int> random_ints(std::size_t n, int lo, int hi, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<int> v(n);
  for (int &x : v) x = dist(gen);
  return v;
}

std::vector<float> random_floats(std::size_t n, float lo, float hi, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float &x : v) x = dist(gen);
  return v;
}

namespace cpu {

long long sum(const std::vector<int> &data) {
  long long s = 0;
  for (int x : data) s += x;
  return s;
}

std::vector<long long> chunk_sums(const std::vector<int> &data, std::size_t chunk) {
  std::vector<long long> out((data.size() + chunk - 1) / chunk, 0);
  for (std::size_t i = 0; i < data.size(); ++i) out[i / chunk] += data[i];
  return out;
}

long long recursive_reduce(std::vector<int> &data) {
  std::size_t size = data.size();
  if (size == 0) return 0;
  std::vector<long long> acc(data.begin(), data.end());
  while (size > 1) {
    std::size_t stride = size / 2;
    for (std::size_t i = 0; i < stride; ++i) acc[i] += acc[i + stride];
    if (size % 2) acc[0] += acc[size - 1];  // the seeds drop this element for odd sizes
    size = stride;
  }
  data.assign(1, static_cast<int>(acc[0]));
  return acc[0];
}

}  // namespace cpu
}  // namespace cudalab
