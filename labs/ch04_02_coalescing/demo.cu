// ch04_02 demo: what data layout, offsets and strides cost on this GPU, beside the sector model
// (your access_cost) and the book's Fermi figures.
//
//   ./ch04_02_coalescing_demo                   the three tables
//   ./ch04_02_coalescing_demo once CASE [K]     one launch, for a profiler. CASE K is one of
//       aos | soa | book_aos | read_offset K | write_offset K | rw_offset K | stride K
//     ncu --clock-control none --metrics l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio,\
//         smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,\
//         l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio,\
//         smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct \
//         ./ch04_02_coalescing_demo once read_offset 11
#include "coalescing.cuh"

#include "cudalab/buffer.cuh"
#include "cudalab/check.cuh"
#include "cudalab/demo.cuh"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

/// The book's innerStruct: two floats, 8 bytes, both used.
struct bookInnerStruct {
  float x;
  float y;
};

/// The book's testInnerStruct, on its 8-byte struct.
__global__ void bookTestInnerStruct(const bookInnerStruct *data, bookInnerStruct *result, int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < static_cast<unsigned int>(n)) {
    bookInnerStruct tmp = data[i];
    tmp.x += 10.f;
    tmp.y += 20.f;
    result[i] = tmp;
  }
}

constexpr int kOffsetN = 1 << 24;           // the book's readSegment size
constexpr unsigned int kOffsetBlock = 512;  // the book's block
constexpr int kStrideN = 1 << 24;           // floats written; A holds kStrideN * 32 floats (2 GiB)
constexpr int kParticles = 1 << 25;         // 32 Mi particles
constexpr unsigned int kBlock = 256;
constexpr long long kModelThreads = 1 << 15;  // threads the sector model is evaluated for

double g_copy_gbs = 0;

/// Times @p launch (median of 21) and exits on error.
double time_ms(const std::function<void()> &launch) {
  cudalab::TimingStats t = cudalab::time_kernel(launch);
  if (!t.ok) {
    std::fprintf(stderr, "%s\n", t.error.c_str());
    std::exit(EXIT_FAILURE);
  }
  return t.median_ms;
}

/// "12.3 ms  1234 GB/s  45.6%" for @p bytes moved in @p ms.
std::string rate(double bytes, double ms) {
  char s[64];
  const double bw = cudalab::gbs(bytes, ms);
  std::snprintf(s, sizeof s, "%8.3f %7.0f %6.1f%%", ms, bw, 100 * bw / g_copy_gbs);
  return s;
}

/// Device array of n floats, every float = @p value (a byte pattern, so no host copy is needed).
void fill(cudalab::DeviceBuffer<float> &buf, std::size_t n, unsigned char byte) {
  CUDALAB_CHECK(buf.allocate(n));
  CUDALAB_CHECK(cudaMemset(buf.get(), byte, buf.bytes()));
}

float pattern(unsigned char byte) {
  float f;
  std::memset(&f, byte, sizeof f);
  return f;
}

/// True if dev[i] == want for begin <= i < end and dev[i] == 0 elsewhere.
bool check_range(const cudalab::DeviceBuffer<float> &dev, std::size_t begin, std::size_t end, float want) {
  std::vector<float> h;
  CUDALAB_CHECK(dev.download(&h));
  for (std::size_t i = 0; i < h.size(); ++i)
    if (h[i] != (i >= begin && i < end ? want : 0.f)) return false;
  return true;
}

struct Layout {
  cudalab::DeviceBuffer<innerStruct> aos_in, aos_out;
  cudalab::DeviceBuffer<bookInnerStruct> book_in, book_out;
  cudalab::DeviceBuffer<float> fields_in, fields_out;  // 8 fields x n floats each
  innerArray in{}, out{};
  void init(int n) {
    CUDALAB_CHECK(aos_in.allocate(n));
    CUDALAB_CHECK(aos_out.allocate(n));
    CUDALAB_CHECK(book_in.allocate(n));
    CUDALAB_CHECK(book_out.allocate(n));
    CUDALAB_CHECK(cudaMemset(aos_in.get(), 0x3F, aos_in.bytes()));
    CUDALAB_CHECK(cudaMemset(book_in.get(), 0x3F, book_in.bytes()));
    fill(fields_in, std::size_t(n) * 8, 0x3F);
    fill(fields_out, std::size_t(n) * 8, 0);
    float *pi[8], *po[8];
    for (int f = 0; f < 8; ++f)
      pi[f] = fields_in.get() + std::size_t(f) * n, po[f] = fields_out.get() + std::size_t(f) * n;
    in = innerArray{pi[0], pi[1], pi[2], pi[3], pi[4], pi[5], pi[6], pi[7]};
    out = innerArray{po[0], po[1], po[2], po[3], po[4], po[5], po[6], po[7]};
  }
};

void layout_table() {
  const int n = kParticles;
  Layout l;
  l.init(n);
  const unsigned int grid = grid_1d(n, kBlock);
  std::printf("\n1. The same update (x += 10, y += 20) of %d Mi particles, block %u; 16 useful bytes per particle\n",
              n >> 20, kBlock);
  std::printf("%-34s %8s %7s %7s | %-26s | %-15s | %s\n", "", "", "", "", "predicted (per load)", "book", "");
  std::printf("%-34s %8s %7s %7s | %9s %6s %9s | %-15s | %s\n", "kernel (layout)", "ms", "GB/s", "%copy", "sect/req",
              "eff", "DRAM/used", "gld_efficiency", "result");
  struct Row {
    const char *name;
    AccessCost load;     // one field load
    AccessCost traffic;  // x and y of a particle together
    const char *book;
  };
  const Row rows[] = {{"testInnerStruct (AoS, 32 B)", access_cost(kModelThreads, 0, 8, 4, 32),
                       access_cost(kModelThreads, 0, 4, 8, 32), "-"},
                      {"book's {x,y} struct (AoS, 8 B)", access_cost(kModelThreads, 0, 2, 4, 32),
                       access_cost(kModelThreads, 0, 1, 8, 32), "50.00 %"},
                      {"testInnerArray (SoA)", access_cost(kModelThreads, 0, 1, 4, 32),
                       access_cost(kModelThreads, 0, 1, 4, 32), "100.00 %"}};
  for (int r = 0; r < 3; ++r) {
    std::function<void()> launch;
    if (r == 0) launch = [&] { testInnerStruct<<<grid, kBlock>>>(l.aos_in.get(), l.aos_out.get(), n); };
    if (r == 1) launch = [&] { bookTestInnerStruct<<<grid, kBlock>>>(l.book_in.get(), l.book_out.get(), n); };
    if (r == 2) launch = [&] { testInnerArray<<<grid, kBlock>>>(l.in, l.out, n); };
    const double ms = time_ms(launch);
    const char *result = "given";
    if (r == 2) {  // check x and y, and that no other field was written
      CUDALAB_CHECK(cudaMemset(l.fields_out.get(), 0, l.fields_out.bytes()));
      launch();
      CUDALAB_CHECK_LAUNCH("testInnerArray");
      std::vector<float> h;
      CUDALAB_CHECK(l.fields_out.download(&h));
      const float x = pattern(0x3F) + 10.f, y = pattern(0x3F) + 20.f;
      bool ok = true;
      for (std::size_t i = 0; i < h.size() && ok; ++i)
        ok = h[i] == (i < std::size_t(n) ? x : i < 2 * std::size_t(n) ? y : 0.f);
      result = ok ? "ok" : "WRONG";
    }
    const Row &w = rows[r];
    std::printf("%-34s %s | %9.1f %5.1f%% %9.2f | %-15s | %s\n", w.name, rate(16.0 * n, ms).c_str(),
                w.load.segments_per_request(), 100 * w.load.efficiency(), w.traffic.traffic_ratio(), w.book, result);
  }
}

void offset_table() {
  const int n = kOffsetN;
  cudalab::DeviceBuffer<float> a, b, c;
  fill(a, n, 0x3F);
  fill(b, n, 0x40);
  fill(c, n, 0);
  const float want = pattern(0x3F) + pattern(0x40);
  const unsigned int grid = grid_1d(n, kOffsetBlock);
  std::printf("\n2. Offsets: %d Mi floats, block %u (the book's readSegment); C = A + B, 12 bytes per element\n",
              n >> 20, kOffsetBlock);
  std::printf("%-6s | %-24s | %-24s | %-24s %-6s | %-17s | %s\n", "", "readOffset", "writeOffset",
              "readWriteOffset (yours)", "", "predicted", "book readOffset");
  std::printf("%-6s | %8s %7s %7s | %8s %7s %7s | %8s %7s %7s %-6s | %8s %8s | %8s %8s\n", "offset", "ms", "GB/s",
              "%copy", "ms", "GB/s", "%copy", "ms", "GB/s", "%copy", "", "sect/req", "128B eff", "ms", "gld_eff");
  const struct {
    int offset;
    const char *book;
  } rows[] = {{0, "   1.820  100.00%"},
              {1, "       -        -"},
              {11, "   1.949   49.81%"},
              {32, "       -        -"},
              {128, "   1.821  100.00%"}};
  for (const auto &row : rows) {
    const int off = row.offset;
    const double bytes = 12.0 * (n - off);
    const double r_ms = time_ms([&] { readOffset<<<grid, kOffsetBlock>>>(a.get(), b.get(), c.get(), n, off); });
    const double w_ms = time_ms([&] { writeOffset<<<grid, kOffsetBlock>>>(a.get(), b.get(), c.get(), n, off); });
    const double rw_ms = time_ms([&] { readWriteOffset<<<grid, kOffsetBlock>>>(a.get(), b.get(), c.get(), n, off); });
    CUDALAB_CHECK(cudaMemset(c.get(), 0, c.bytes()));
    readWriteOffset<<<grid, kOffsetBlock>>>(a.get(), b.get(), c.get(), n, off);
    CUDALAB_CHECK_LAUNCH("readWriteOffset");
    const bool ok = check_range(c, off, n, want);
    const AccessCost s32 = access_cost(kModelThreads, off, 1, 4, 32), l128 = access_cost(kModelThreads, off, 1, 4, 128);
    std::printf("%6d | %s | %s | %s %-6s | %8.2f %7.1f%% | %s\n", off, rate(bytes, r_ms).c_str(),
                rate(bytes, w_ms).c_str(), rate(bytes, rw_ms).c_str(), ok ? "ok" : "WRONG", s32.segments_per_request(),
                100 * l128.efficiency(), row.book);
  }
}

void stride_table() {
  const int n = kStrideN;
  cudalab::DeviceBuffer<float> a, c;
  fill(a, std::size_t(n) * 32, 0x3F);
  fill(c, n, 0);
  const unsigned int grid = grid_1d(n, kBlock);
  std::printf("\n3. Strides: readStride, C[i] = A[i * stride], %d Mi floats written, block %u; 8 useful bytes each\n",
              n >> 20, kBlock);
  std::printf("%-6s | %8s %7s %7s | %8s %6s %9s | %s\n", "stride", "ms", "GB/s", "%copy", "sect/req", "eff",
              "DRAM/used", "GB/s moved (model)");
  for (int s : {1, 2, 4, 8, 16, 32}) {
    const double ms = time_ms([&] { readStride<<<grid, kBlock>>>(a.get(), c.get(), n, s); });
    const AccessCost m = access_cost(kModelThreads, 0, s, 4, 32);
    const double moved = 4.0 * n * m.traffic_ratio() + 4.0 * n;  // reads at the model's traffic, writes once
    std::printf("%6d | %s | %8.1f %5.1f%% %9.2f | %8.0f\n", s, rate(8.0 * n, ms).c_str(), m.segments_per_request(),
                100 * m.efficiency(), m.traffic_ratio(), cudalab::gbs(moved, ms));
  }
}

int once(const std::string &what, int k) {
  const unsigned int block = kBlock;
  if (what == "aos" || what == "soa" || what == "book_aos") {
    const int n = kParticles;
    Layout l;
    l.init(n);
    if (what == "aos") testInnerStruct<<<grid_1d(n, block), block>>>(l.aos_in.get(), l.aos_out.get(), n);
    if (what == "book_aos") bookTestInnerStruct<<<grid_1d(n, block), block>>>(l.book_in.get(), l.book_out.get(), n);
    if (what == "soa") testInnerArray<<<grid_1d(n, block), block>>>(l.in, l.out, n);
    CUDALAB_CHECK_LAUNCH("layout kernel");
    return EXIT_SUCCESS;
  }
  if (what == "stride") {
    const int n = kStrideN, s = k < 1 ? 1 : k > 32 ? 32 : k;
    cudalab::DeviceBuffer<float> a, c;
    fill(a, std::size_t(n) * s, 0x3F);
    fill(c, n, 0);
    readStride<<<grid_1d(n, block), block>>>(a.get(), c.get(), n, s);
    CUDALAB_CHECK_LAUNCH("readStride");
    return EXIT_SUCCESS;
  }
  const int n = kOffsetN, off = k < 0 ? 0 : k;
  cudalab::DeviceBuffer<float> a, b, c;
  fill(a, n, 0x3F);
  fill(b, n, 0x40);
  fill(c, n, 0);
  const unsigned int grid = grid_1d(n, kOffsetBlock);
  if (what == "read_offset")
    readOffset<<<grid, kOffsetBlock>>>(a.get(), b.get(), c.get(), n, off);
  else if (what == "write_offset")
    writeOffset<<<grid, kOffsetBlock>>>(a.get(), b.get(), c.get(), n, off);
  else if (what == "rw_offset")
    readWriteOffset<<<grid, kOffsetBlock>>>(a.get(), b.get(), c.get(), n, off);
  else {
    std::fprintf(stderr,
                 "once: unknown case '%s' (aos, soa, book_aos, read_offset K, write_offset K, rw_offset K, "
                 "stride K)\n",
                 what.c_str());
    return EXIT_FAILURE;
  }
  CUDALAB_CHECK_LAUNCH("offset kernel");
  return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 3 && std::strcmp(argv[1], "once") == 0) return once(argv[2], argc >= 4 ? std::atoi(argv[3]) : 0);

  const cudalab::demo::Session session = cudalab::demo::start();
  const cudalab::DeviceInfo &dev = session.dev;
  g_copy_gbs = session.copy_gbs;
  std::printf(
      "%s\nmeasured copy bandwidth %.0f GB/s; GB/s below = useful bytes / time; the model columns come from "
      "your access_cost (32-byte sectors; 128-byte lines for Fermi)\n",
      cudalab::describe_device(dev).c_str(), g_copy_gbs);
  layout_table();  // first: `ctest -L profile` profiles the first 60 launches
  offset_table();
  stride_table();
  return EXIT_SUCCESS;
}
