#include "histogram_check.cuh"

#include "poison_shared.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/launch.cuh"
#include "cudalab/testing.cuh"

#include "cudalab/driver_entry.cuh"

#include <cstring>
#include <sstream>

namespace {

constexpr std::size_t kGuardBytes = 256;     // input guard on each side (a multiple of 16)
constexpr std::size_t kGuardCounters = 256;  // poisoned counters after buckets[255]

std::uint64_t splitmix64(std::uint64_t &state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The buckets' values before a launch, in [0, 1000) from @p seed: the kernel must add to them.
void random_start(std::uint64_t seed, std::vector<unsigned long long> *start, std::vector<unsigned int> *start32) {
  std::uint64_t state = seed ^ 0x5EEDull;
  start->assign(kNumBins, 0);
  start32->assign(kNumBins, 0);
  for (unsigned int b = 0; b < kNumBins; ++b)
    (*start32)[b] = static_cast<unsigned int>((*start)[b] = splitmix64(state) % 1000);
}

}  // namespace

std::vector<unsigned char> make_bytes(size_t n, Pattern pattern, std::uint64_t seed, int value) {
  std::uint64_t state = seed;
  std::vector<unsigned char> bytes(n);
  if (pattern == Pattern::kSingleValue) {
    if (value < 0) {
      value = static_cast<int>(splitmix64(state) % 255);
      if (value >= kGuardByte) ++value;  // any byte but the guard
    }
    std::memset(bytes.data(), value, n);
    return bytes;
  }
  if (pattern == Pattern::kSparse) {
    unsigned char values[5] = {0, 255, 0, 0, 0};
    for (int v = 2; v < 5; ++v) {
      values[v] = static_cast<unsigned char>(splitmix64(state) % 255);
      if (values[v] >= kGuardByte) ++values[v];  // any byte but the guard
    }
    for (std::size_t i = 0; i < n; ++i) bytes[i] = values[splitmix64(state) % 5];
    return bytes;
  }
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::uint64_t r = splitmix64(state);
    std::memcpy(bytes.data() + i, &r, 8);
  }
  if (i < n) {
    const std::uint64_t r = splitmix64(state);
    std::memcpy(bytes.data() + i, &r, n - i);
  }
  return bytes;
}

std::string pattern_name(Pattern pattern, const std::vector<unsigned char> &bytes) {
  if (pattern == Pattern::kUniform) return "uniform";
  if (pattern == Pattern::kSparse) return "sparse (5 byte values, 251 bins never hit)";
  return "single value " + std::to_string(bytes.empty() ? 0 : bytes[0]);
}

std::vector<unsigned long long> cpu_histogram(const std::vector<unsigned char> &bytes) {
  // Four partial histograms, so consecutive equal bytes do not wait on each other's counter.
  std::vector<unsigned long long> h[4];
  for (auto &p : h) p.assign(kNumBins, 0);
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++h[0][bytes[i]];
    ++h[1][bytes[i + 1]];
    ++h[2][bytes[i + 2]];
    ++h[3][bytes[i + 3]];
  }
  for (; i < n; ++i) ++h[0][bytes[i]];
  for (unsigned int b = 0; b < kNumBins; ++b) h[0][b] += h[1][b] + h[2][b] + h[3][b];
  return h[0];
}

std::string compare_histogram(const std::string &kernel, const std::vector<unsigned long long> &start,
                              const std::vector<unsigned long long> &counts, const std::vector<unsigned int> &got,
                              unsigned long long n, const std::string &context) {
  std::size_t wrong = 0, first = 0;
  long long counted = 0;  // what the kernel added, over all bins
  bool went_down = false, touched = false;
  for (std::size_t b = 0; b < kNumBins; ++b) {
    const unsigned int expected = static_cast<unsigned int>(start[b] + counts[b]);  // counters wrap at 2^32
    const long long added = static_cast<long long>(got[b]) - static_cast<long long>(start[b]);
    counted += added;
    went_down |= added < 0;
    touched |= added != 0;
    if (got[b] != expected && wrong++ == 0) first = b;
  }
  if (wrong == 0) return "";
  std::ostringstream msg;
  msg << kernel << ": wrong count in bin " << first << ": expected " << start[first] + counts[first] << " ("
      << start[first] << " before the launch + " << counts[first] << " counted), got " << got[first] << "; " << wrong
      << " of 256 bins wrong";
  if (!touched) {
    msg << "; nothing was added to buckets";
  } else if (went_down) {
    msg << "; some bins went down: buckets were overwritten instead of added to (merge with atomicAdd; the "
           "caller zeroes buckets)";
  } else if (counted < static_cast<long long>(n)) {
    msg << "; counted " << counted << " of n=" << n << " bytes (" << static_cast<long long>(n) - counted
        << " lost: bins never zeroed or merged, a count made without atomicAdd, or bytes skipped)";
  } else if (counted > static_cast<long long>(n)) {
    msg << "; counted " << counted << " bytes but n=" << n << " (" << counted - static_cast<long long>(n)
        << " too many: bytes counted twice";
    if (got[kGuardByte] > start[kGuardByte] + counts[kGuardByte])
      msg << ", or read outside colors[0, n): bin " << int(kGuardByte) << " is the guard byte around the input";
    msg << ")";
  }
  msg << " (" << context << ")";
  return msg.str();
}

std::string shared_error(const SharedRun &run) {
  using cudalab::DeviceBuffer;
  if (cudalab::skipped_under_sanitizer(run.n)) return "";  // a SanitizeAll run: the smaller sizes suffice
  const unsigned int grid = run.grid != 0 ? run.grid : histogram_shared_grid(run.n, run.block);
  const std::vector<unsigned char> bytes = make_bytes(run.n, run.pattern, run.seed, run.value);
  std::ostringstream context;
  context << (run.poison_shared ? "shared memory filled with 0xCDCDCDCD before the launch, " : "") << "n=" << run.n
          << " offset=" << run.offset << " block=" << run.block << " grid=" << grid << " seed=" << run.seed
          << " input=" << pattern_name(run.pattern, bytes);
  const std::string ctx = context.str();

  // Layout: kGuardBytes guard bytes (16-byte aligned, as cudaMalloc is), `offset` more, the n
  // input bytes, kGuardBytes guard bytes.
  std::vector<unsigned char> guarded(kGuardBytes + run.offset, kGuardByte);
  guarded.insert(guarded.end(), bytes.begin(), bytes.end());
  guarded.resize(guarded.size() + kGuardBytes, kGuardByte);
  // buckets start at random values: the kernel adds to them.
  std::vector<unsigned long long> start;
  std::vector<unsigned int> start32;
  random_start(run.seed, &start, &start32);

  DeviceBuffer<unsigned char> d_in;
  DeviceBuffer<unsigned int> d_buckets;
  cudaError_t err = d_in.upload(guarded);
  if (err == cudaSuccess) err = d_buckets.allocate(kNumBins + kGuardCounters);
  if (err == cudaSuccess) err = d_buckets.poison();
  if (err == cudaSuccess)
    err = cudaMemcpy(d_buckets.get(), start32.data(), kNumBins * sizeof(unsigned int), cudaMemcpyHostToDevice);
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);

  if (run.poison_shared) {
    // The same carveout as the fill (a hint), so the SM is not reconfigured between the kernels.
    err = cudaFuncSetAttribute(histogramShared, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared);
    if (err == cudaSuccess) err = cudalab_poison::fill_shared_memory(0xCDCDCDCDu);
    if (err != cudaSuccess) return cudalab::describe_error(err, "filling shared memory", __FILE__, __LINE__);
  }
  cudalab::launch(histogramShared, grid, run.block)(d_in.get() + kGuardBytes + run.offset, d_buckets.get(), run.n);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, "histogramShared", __FILE__, __LINE__) + " (" + ctx + ")";

  std::vector<unsigned char> in_after;
  std::vector<unsigned int> out;
  if ((err = d_in.download(&in_after)) != cudaSuccess || (err = d_buckets.download(&out)) != cudaSuccess)
    return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  std::ostringstream msg;
  for (std::size_t i = 0; i < in_after.size(); ++i) {
    if (in_after[i] != guarded[i]) {
      msg << "histogramShared modified memory it should only read: byte "
          << static_cast<long long>(i) - static_cast<long long>(kGuardBytes + run.offset) << " of colors changed ("
          << ctx << ")";
      return msg.str();
    }
  }
  for (std::size_t i = kNumBins; i < out.size(); ++i) {
    if (!cudalab::is_poison(out[i])) {
      msg << "histogramShared wrote past the last bin: buckets[" << i << "] was written (" << ctx << ")";
      return msg.str();
    }
  }
  out.resize(kNumBins);
  return compare_histogram("histogramShared", start, cpu_histogram(bytes), out, run.n, ctx);
}

namespace {

/// One physical chunk of device memory mapped `copies` times, back to back, into one reserved
/// address range (cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess); undone on
/// destruction.
class RepeatedChunk {
 public:
  RepeatedChunk() = default;
  RepeatedChunk(const RepeatedChunk &) = delete;
  RepeatedChunk &operator=(const RepeatedChunk &) = delete;
  ~RepeatedChunk() {
    for (std::size_t k = 0; k < mapped_; ++k) unmap_(base_ + k * chunk_, chunk_);  // one mapping at a time
    if (handle_ != 0) release_(handle_);
    if (base_ != 0) address_free_(base_, reserved_);
  }

  /// Maps at least @p min_total bytes in chunks of about @p chunk_bytes. "" on success; otherwise
  /// why the mapping cannot be made here (*driver_refused: the driver or GPU lacks the feature or
  /// the address space, as opposed to a call that failed with an unexpected error).
  std::string map(std::size_t chunk_bytes, std::size_t min_total, bool *driver_refused) {
    *driver_refused = true;
    int device = 0, vmm = 0;
    cudaError_t err = cudaFree(nullptr);  // the runtime starts the driver and makes its context current
    if (err == cudaSuccess) err = cudaGetDevice(&device);
    if (err != cudaSuccess) {
      *driver_refused = false;
      return cudalab::describe_error(err, "cudaFree(nullptr), cudaGetDevice", __FILE__, __LINE__);
    }
    decltype(&cuDeviceGet) device_get = nullptr;
    decltype(&cuDeviceGetAttribute) device_attribute = nullptr;
    CUdevice cu_device = 0;
    if (!cudalab::driver_entry("cuDeviceGet", device_get) ||
        !cudalab::driver_entry("cuDeviceGetAttribute", device_attribute) ||
        device_get(&cu_device, device) != CUDA_SUCCESS ||
        device_attribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, cu_device) != CUDA_SUCCESS ||
        vmm == 0)
      return "this GPU and driver have no virtual memory management";
    if (!cudalab::driver_entry("cuMemGetAllocationGranularity", granularity_) ||
        !cudalab::driver_entry("cuMemCreate", create_) || !cudalab::driver_entry("cuMemRelease", release_) ||
        !cudalab::driver_entry("cuMemAddressReserve", reserve_) ||
        !cudalab::driver_entry("cuMemAddressFree", address_free_) || !cudalab::driver_entry("cuMemMap", map_) ||
        !cudalab::driver_entry("cuMemUnmap", unmap_) || !cudalab::driver_entry("cuMemSetAccess", set_access_))
      return "the driver does not offer its virtual memory management functions";
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    std::size_t granularity = 0;
    if (granularity_(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || granularity == 0)
      return "cuMemGetAllocationGranularity failed";
    chunk_ = (chunk_bytes + granularity - 1) / granularity * granularity;
    const std::size_t copies = min_total / chunk_ + 1;
    reserved_ = copies * chunk_;
    CUresult r = reserve_(&base_, reserved_, 0, 0, 0);
    if (r != CUDA_SUCCESS) {
      base_ = 0;
      return "cuMemAddressReserve of " + std::to_string(reserved_ >> 20) + " MiB of address space failed (CUresult " +
             std::to_string(int(r)) + ")";
    }
    *driver_refused = false;
    if ((r = create_(&handle_, chunk_, &prop, 0)) != CUDA_SUCCESS) {
      handle_ = 0;
      return "cuMemCreate of " + std::to_string(chunk_ >> 20) + " MiB failed (CUresult " + std::to_string(int(r)) + ")";
    }
    for (; mapped_ < copies; ++mapped_)
      if ((r = map_(base_ + mapped_ * chunk_, chunk_, 0, handle_, 0)) != CUDA_SUCCESS)
        return "cuMemMap of copy " + std::to_string(mapped_) + " failed (CUresult " + std::to_string(int(r)) + ")";
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if ((r = set_access_(base_, reserved_, &access, 1)) != CUDA_SUCCESS)
      return "cuMemSetAccess failed (CUresult " + std::to_string(int(r)) + ")";
    return "";
  }

  unsigned char *data() const { return reinterpret_cast<unsigned char *>(static_cast<std::uintptr_t>(base_)); }
  std::size_t chunk() const { return chunk_; }
  std::size_t copies() const { return mapped_; }

 private:
  decltype(&cuMemGetAllocationGranularity) granularity_ = nullptr;
  decltype(&cuMemCreate) create_ = nullptr;
  decltype(&cuMemRelease) release_ = nullptr;
  decltype(&cuMemAddressReserve) reserve_ = nullptr;
  decltype(&cuMemAddressFree) address_free_ = nullptr;
  decltype(&cuMemMap) map_ = nullptr;
  decltype(&cuMemUnmap) unmap_ = nullptr;
  decltype(&cuMemSetAccess) set_access_ = nullptr;
  CUdeviceptr base_ = 0;
  CUmemGenericAllocationHandle handle_ = 0;
  std::size_t chunk_ = 0, reserved_ = 0, mapped_ = 0;
};

}  // namespace

std::string long_input_error(const LongRun &run, std::string *not_applicable) {
  using cudalab::DeviceBuffer;
  not_applicable->clear();
  constexpr std::size_t kChunk = std::size_t(128) << 20;
  if (cudalab::skipped_under_sanitizer(run.min_bytes)) return "";  // a SanitizeAll run: the smaller sizes suffice
  RepeatedChunk input;
  bool refused = false;
  const std::string why = input.map(kChunk, run.min_bytes + run.offset + run.cut, &refused);
  if (!why.empty()) {
    if (refused) {
      *not_applicable = "an input past " + std::to_string(run.min_bytes) + " bytes made of one 128 MiB chunk mapped " +
                        "again and again needs the driver's virtual memory management: " + why;
      return "";
    }
    return "test setup: " + why;
  }
  const std::size_t chunk = input.chunk(), copies = input.copies();
  const std::size_t n = copies * chunk - run.offset - run.cut;
  const std::vector<unsigned char> bytes = make_bytes(chunk, Pattern::kUniform, run.seed);
  const unsigned int grid = histogram_shared_grid(n, kHistogramBlock);
  std::ostringstream context;
  context << "n=" << n << " (one " << (chunk >> 20) << " MiB chunk of uniform random bytes mapped " << copies
          << " times; the input starts " << run.offset << " bytes into it) block=" << kHistogramBlock
          << " grid=" << grid << " seed=" << run.seed;
  const std::string ctx = context.str();

  // The exact counts: every copy of the chunk, less the bytes before the start and after the end.
  std::vector<unsigned long long> counts = cpu_histogram(bytes);
  for (auto &c : counts) c *= copies;
  for (std::size_t i = 0; i < run.offset; ++i) --counts[bytes[i]];
  for (std::size_t i = chunk - run.cut; i < chunk; ++i) --counts[bytes[i]];

  std::vector<unsigned long long> start;
  std::vector<unsigned int> start32;
  random_start(run.seed, &start, &start32);
  DeviceBuffer<unsigned int> d_buckets;
  cudaError_t err = cudaMemcpy(input.data(), bytes.data(), chunk, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = d_buckets.allocate(kNumBins + kGuardCounters);
  if (err == cudaSuccess) err = d_buckets.poison();
  if (err == cudaSuccess)
    err = cudaMemcpy(d_buckets.get(), start32.data(), kNumBins * sizeof(unsigned int), cudaMemcpyHostToDevice);
  if (err != cudaSuccess) return cudalab::describe_error(err, "test setup", __FILE__, __LINE__);

  cudalab::launch(histogramShared, grid, kHistogramBlock)(input.data() + run.offset, d_buckets.get(), n);
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return cudalab::describe_error(err, "histogramShared", __FILE__, __LINE__) + " (" + ctx + ")";

  std::vector<unsigned char> after(chunk);
  std::vector<unsigned int> out;
  if ((err = cudaMemcpy(after.data(), input.data(), chunk, cudaMemcpyDeviceToHost)) != cudaSuccess ||
      (err = d_buckets.download(&out)) != cudaSuccess)
    return cudalab::describe_error(err, "copy back", __FILE__, __LINE__);
  if (after != bytes) return "histogramShared modified memory it should only read: the input changed (" + ctx + ")";
  for (std::size_t i = kNumBins; i < out.size(); ++i)
    if (!cudalab::is_poison(out[i]))
      return "histogramShared wrote past the last bin: buckets[" + std::to_string(i) + "] was written (" + ctx + ")";
  out.resize(kNumBins);
  return compare_histogram("histogramShared", start, counts, out, n, ctx);
}
