#include "cudalab/check.cuh"
#include "cudalab/data.hpp"
#include "cudalab/demo.cuh"
#include "cudalab/reference.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace cudalab::demo {

void require_gpu() {
  std::string why;
  if (gpu_available(&why)) return;
  std::fprintf(stderr, "error: this demo needs a GPU: %s\n", why.c_str());
  std::exit(EXIT_FAILURE);
}

Session start() {
  require_gpu();
  Session s;
  CUDALAB_CHECK(query_device(0, &s.dev));
  s.copy_gbs = measured_copy_bandwidth_gbs();
  if (s.copy_gbs <= 0) {
    std::fprintf(stderr, "error: the copy bandwidth could not be measured (cudaMalloc or cudaMemcpyAsync failed)\n");
    std::exit(EXIT_FAILURE);
  }
  return s;
}

TimingStats time_or_exit(const std::string &name, const std::function<void()> &launch, const TimingOptions &opts,
                         const std::function<void()> &setup) {
  TimingStats t = time_kernel(launch, opts, setup);
  if (!t.ok) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), t.error.c_str());
    std::exit(EXIT_FAILURE);
  }
  return t;
}

void ReductionInput::restore() const {
  cudaMemcpyAsync(work.get(), pristine.get(), work.bytes(), cudaMemcpyDeviceToDevice);
}

ReductionInput reduction_input(std::size_t n, bool in_place) {
  ReductionInput in;
  in.host = random_ints(n, 0, 255, 2024);  // the book's rand() & 0xFF
  in.sum = cpu::sum(in.host);
  CUDALAB_CHECK(in.pristine.upload(in.host));
  if (in_place) CUDALAB_CHECK(in.work.allocate(n));
  return in;
}

long long sum_of_partials(const DeviceBuffer<int> &out, std::size_t count) {
  std::vector<int> partial;
  CUDALAB_CHECK(out.download(&partial));
  long long total = 0;
  for (std::size_t b = 0; b < count && b < partial.size(); ++b) total += partial[b];
  return total;
}

namespace {

float float_of_bytes(unsigned char byte) {
  float f;
  std::memset(&f, byte, sizeof f);
  return f;
}

}  // namespace

MatrixSum matrix_sum(std::size_t elems) {
  MatrixSum m;
  CUDALAB_CHECK(m.a.allocate(elems));
  CUDALAB_CHECK(m.b.allocate(elems));
  CUDALAB_CHECK(m.c.allocate(elems));
  CUDALAB_CHECK(cudaMemset(m.a.get(), 0x3F, m.a.bytes()));
  CUDALAB_CHECK(cudaMemset(m.b.get(), 0x40, m.b.bytes()));
  m.want = float_of_bytes(0x3F) + float_of_bytes(0x40);
  return m;
}

bool every_element_is(const DeviceBuffer<float> &c, float want, std::vector<float> *host) {
  CUDALAB_CHECK(c.download(host));
  for (float v : *host)
    if (v != want) return false;
  return true;
}

Cell Cell::text(const std::string &table, const std::string &csv) {
  Cell c;
  c.table_ = table;
  c.csv_ = csv;
  return c;
}

Cell Cell::raw(const std::string &table, const std::string &csv) {
  Cell c = text(table, csv);
  c.raw_ = true;
  return c;
}

Cell Cell::covered() {
  Cell c;
  c.covered_ = true;
  return c;
}

std::vector<Column> reduction_columns(const char *kernel_format, bool grid) {
  std::vector<Column> c = {{"kernel", "kernel", kernel_format, "%s", ""}};
  if (grid) c.push_back({"grid", "grid", "%6u", "%u"});
  c.insert(c.end(), {{"ms", "ms", "%9.4f", "%.4f"},
                     {"gbs", "GB/s", "%8.1f", "%.1f"},
                     {"pct_copy", "%copy", "%6.1f%%", "%.1f"},
                     {"step_speedup", "step", "%5.2fx", "%.3f"},
                     {"cumulative_speedup", "cumul", "%5.2fx", "%.3f"},
                     {"book_ms", "book ms", "%9.3f", "%.3f", " | "},
                     {"book_cumulative", "cumul", "%5.2fx", "%.3f"},
                     {nullptr, "result", "%s", "%s", "  "}});
  return c;
}

std::string format(const char *fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

namespace {

/// One printf conversion, "%-9.4f" and what follows it ("%" for "%%", "x").
struct Spec {
  bool left = false;
  int width = 0;  // of the whole cell: the conversion's width plus the text after it
  char conversion = 's';
};

Spec parse(const char *fmt) {
  Spec s;
  const char *p = std::strchr(fmt, '%');
  if (!p) return s;
  ++p;
  for (; *p == '-' || *p == '+' || *p == ' ' || *p == '0' || *p == '#'; ++p)
    if (*p == '-') s.left = true;
  s.width = std::atoi(p);
  p += std::strspn(p, "0123456789.");
  s.conversion = *p ? *p++ : 's';
  for (; *p; ++p) {  // the text after the conversion: "%%" prints one character
    if (*p == '%' && p[1] == '%') ++p;
    ++s.width;
  }
  return s;
}

std::string pad(const std::string &text, const Spec &s) {
  return format(s.left ? "%-*s" : "%*s", s.width, text.c_str());
}

/// A number printed with @p fmt, whose conversion decides its type.
std::string number(const char *fmt, double v) {
  char buf[128];
  switch (parse(fmt).conversion) {
    case 'd':
    case 'i':
      std::snprintf(buf, sizeof buf, fmt, static_cast<int>(v));
      break;
    case 'u':
      std::snprintf(buf, sizeof buf, fmt, static_cast<unsigned>(v));
      break;
    case 'f':
    case 'e':
    case 'g':
      std::snprintf(buf, sizeof buf, fmt, v);
      break;
    default:
      std::fprintf(stderr, "cudalab::demo::Table: a number in a column of format \"%s\"\n", fmt);
      std::exit(EXIT_FAILURE);
  }
  return buf;
}

}  // namespace

Table::Table(std::vector<Column> columns, bool csv) : columns_(std::move(columns)), csv_(csv) {}

void Table::header() {
  std::string line;
  if (csv_) {
    if (csv_header_done_) return;
    csv_header_done_ = true;
    for (const Column &c : columns_) {
      if (!c.csv_name) continue;
      if (!line.empty()) line += ',';
      line += c.csv_name;
    }
  } else {
    for (const Column &c : columns_) {
      if (!c.header) continue;
      line += c.sep;
      line += pad(c.header, parse(c.format));
    }
  }
  std::printf("%s\n", line.c_str());
}

void Table::row(std::initializer_list<Cell> cells) {
  if (cells.size() != columns_.size()) {
    std::fprintf(stderr, "cudalab::demo::Table: a row of %zu cells for %zu columns\n", cells.size(), columns_.size());
    std::exit(EXIT_FAILURE);
  }
  std::string line;
  bool first = true;
  const Cell *cell = cells.begin();
  for (const Column &c : columns_) {
    const Cell &x = *cell++;
    if (csv_) {
      if (!c.csv_name) continue;
      if (!first) line += ',';
      first = false;
      if (!x.covered_) line += x.number_ ? number(c.csv_format, x.value_) : x.csv_;
    } else {
      if (!c.header || x.covered_) continue;
      line += c.sep;
      if (x.number_)
        line += number(c.format, x.value_);
      else
        line += x.raw_ ? x.table_ : pad(x.table_, parse(c.format));
    }
  }
  std::printf("%s\n", line.c_str());
}

}  // namespace cudalab::demo
