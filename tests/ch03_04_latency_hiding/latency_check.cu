#include "latency_check.cuh"

#include "cudalab/launch.cuh"
#include "latency.cuh"

#include <cstring>
#include <memory>
#include <random>
#include <sstream>

namespace {
constexpr std::size_t kGuard = 1024;  // int4 after out[n - 1] that must stay poisoned
}  // namespace

std::string copy_error(const char *name, CopyKernel kernel, std::size_t n, unsigned int grid, unsigned int block,
                       std::size_t dyn_smem, std::uint64_t seed) {
  return copy_error(
      name,
      [=](const int4 *in, int4 *out, std::size_t count) {
        cudalab::launch(kernel, grid, block, dyn_smem)(in, out, count);
        return cudaGetLastError();
      },
      n, grid, block, dyn_smem, seed);
}

std::string copy_error(const char *name, const CopyLaunch &launch, std::size_t n, unsigned int grid, unsigned int block,
                       std::size_t dyn_smem, std::uint64_t seed) {
  const std::string ctx = cudalab::context({{"n", (long long)n},
                                            {"grid", grid},
                                            {"block", block},
                                            {"dyn_smem", (long long)dyn_smem},
                                            {"seed", (long long)seed}});
  std::vector<int> ints = cudalab::random_ints(4 * n, -1000000, 1000000, seed);
  std::vector<int4> input(n);
  std::memcpy(input.data(), ints.data(), n * sizeof(int4));
  cudalab::DeviceBuffer<int4> d_in, d_out;
  cudaError_t err = d_in.upload(input);
  if (err == cudaSuccess) err = d_out.allocate(n + kGuard);
  if (err == cudaSuccess) err = d_out.poison();
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);

  err = launch(d_in.get(), d_out.get(), n);
  if (err == cudaSuccess) err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, name, __FILE__, __LINE__) + " (" + ctx + ")";

  std::vector<int4> out;
  if ((err = d_out.download(&out)) != cudaSuccess) return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  std::ostringstream msg;
  for (std::size_t i = 0; i < kGuard; ++i) {
    if (!cudalab::is_poison(out[n + i])) {
      msg << name << " wrote past the end of out: element " << n + i << " (n = " << n << ") was written (" << ctx
          << ")";
      return msg.str();
    }
  }
  std::size_t first = n, wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int4 a = out[i], e = input[i];
    if (a.x != e.x || a.y != e.y || a.z != e.z || a.w != e.w) {
      if (wrong++ == 0) first = i;
    }
  }
  if (wrong == 0) return "";
  const int4 a = out[first], e = input[first];
  msg << name << ": wrong result at element " << first << ": expected (" << e.x << "," << e.y << "," << e.z << ","
      << e.w << "), got (" << a.x << "," << a.y << "," << a.z << "," << a.w << ")"
      << (cudalab::is_poison(a) ? " (never written: still the poison value)" : "") << "; " << wrong << " of " << n
      << " wrong (" << ctx << ")";
  return msg.str();
}

cudalab::SampleCheck copy_sample_check(const char *name, std::vector<int4> input, int4 *d_in, int4 *d_out,
                                       const std::string &ctx, std::uint64_t seed) {
  struct State {
    std::string name, ctx;
    std::vector<int4> input, actual;
    int4 *d_in = nullptr, *d_out = nullptr;
    std::mt19937_64 rng;
  };
  auto s = std::make_shared<State>();
  s->name = name;
  s->ctx = ctx;
  s->input = std::move(input);
  s->actual.resize(s->input.size());
  s->d_in = d_in;
  s->d_out = d_out;
  s->rng.seed(seed ^ 0x5a3c0ffee1234567ull);
  cudalab::SampleCheck check;
  check.prepare = [s](int) {
    const std::size_t n = s->input.size();
    if (n == 0) return;
    const std::size_t j = std::uniform_int_distribution<std::size_t>(0, n - 1)(s->rng);
    std::uniform_int_distribution<int> value(-1000000, 1000000);
    int4 &e = s->input[j];
    const int old_x = e.x;
    while (e.x == old_x) e.x = value(s->rng);
    e.y = value(s->rng);
    e.z = value(s->rng);
    e.w = value(s->rng);
    cudaMemcpy(s->d_in + j, &e, sizeof e, cudaMemcpyHostToDevice);
    cudaMemset(s->d_out, cudalab::kPoisonByte, n * sizeof(int4));
  };
  check.verify = [s](int) -> std::string {
    const std::size_t n = s->input.size();
    cudaError_t err = cudaMemcpy(s->actual.data(), s->d_out, n * sizeof(int4), cudaMemcpyDeviceToHost);
    if (err != cudaSuccess)
      return cudalab::describe_error(err, "copy back of a timed sample's output", __FILE__, __LINE__);
    if (std::memcmp(s->actual.data(), s->input.data(), n * sizeof(int4)) == 0) return "";
    std::size_t first = n, wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const int4 a = s->actual[i], e = s->input[i];
      if (a.x != e.x || a.y != e.y || a.z != e.z || a.w != e.w) {
        if (wrong++ == 0) first = i;
      }
    }
    const int4 a = s->actual[first], e = s->input[first];
    std::ostringstream msg;
    msg << s->name << ": wrong result at element " << first << ": expected (" << e.x << "," << e.y << "," << e.z << ","
        << e.w << "), got (" << a.x << "," << a.y << "," << a.z << "," << a.w << ")"
        << (cudalab::is_poison(a) ? " (never written: still the poison value)" : "") << "; " << wrong << " of " << n
        << " wrong (" << s->ctx << ")";
    return msg.str();
  };
  return check;
}

ChaseRun run_chase(const std::vector<unsigned int> &host, const unsigned int *d_next, unsigned int start,
                   unsigned int warmup, unsigned int steps, bool flush, std::uint64_t seed) {
  ChaseRun run;
  const std::string ctx = cudalab::context({{"elements", (long long)host.size()},
                                            {"start", start},
                                            {"warmup_steps", warmup},
                                            {"steps", steps},
                                            {"seed", (long long)seed}});
  unsigned int want = start;
  for (unsigned long long i = 0; i < (unsigned long long)warmup + steps; ++i) want = host[want];

  cudalab::DeviceBuffer<ChaseResult> d_result;
  cudaError_t err = d_result.allocate(1);
  if (err == cudaSuccess) err = d_result.poison();
  if (err != cudaSuccess) {
    run.error = cudalab::describe_error(err, "test setup", __FILE__, __LINE__);
    return run;
  }
  if (flush) cudalab::flush_l2();
  cudalab::launch(pointerChase, 1, 1)(d_next, start, warmup, steps, d_result.get());
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    run.error = cudalab::describe_error(err, "pointerChase", __FILE__, __LINE__) + " (" + ctx + ")";
    return run;
  }
  std::vector<ChaseResult> r;
  if ((err = d_result.download(&r)) != cudaSuccess) {
    run.error = cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
    return run;
  }
  std::ostringstream msg;
  if (cudalab::is_poison(r[0].index) || r[0].index != want) {
    msg << "pointerChase: wrong result->index after " << warmup << " + " << steps << " hops: expected " << want
        << ", got " << r[0].index << (cudalab::is_poison(r[0].index) ? " (never written: still the poison value)" : "")
        << " (" << ctx << ")";
    run.error = msg.str();
  } else if (cudalab::is_poison(r[0].cycles) || r[0].cycles <= 0) {
    msg << "pointerChase: result->cycles is " << r[0].cycles
        << (cudalab::is_poison(r[0].cycles) ? " (never written: still the poison value)" : "")
        << ", expected the clock64() difference around the timed hops, > 0 (" << ctx << ")";
    run.error = msg.str();
  } else {
    run.cycles_per_load = double(r[0].cycles) / steps;
  }
  return run;
}
