/// @file demo.cuh
/// @brief What the demo programs share: their opening (a GPU, its description and the measured
/// copy bandwidth), the reductions' and the sumMatrix demos' inputs, and Table, which prints a
/// demo's results as aligned columns or, with `--csv`, as the CSV that tools/plots.py reads.
///
/// For demo programs only: like CUDALAB_CHECK, these functions exit with a message when a CUDA
/// call fails. Tests use cudalab/testing.cuh instead.
#pragma once

#include "cudalab/buffer.cuh"
#include "cudalab/device.cuh"
#include "cudalab/timing.cuh"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace cudalab::demo {

/// @brief Exits with "error: this demo needs a GPU: <why>" (status 1) when no usable GPU exists.
/// start() calls it; call it first where a demo uses the GPU before start().
void require_gpu();

/// @brief What every demo measures before its tables (`const auto [dev, copy_gbs] = start();`).
struct Session {
  DeviceInfo dev;         ///< GPU 0
  double copy_gbs = 0.0;  ///< measured_copy_bandwidth_gbs(): the ceiling of the "%copy" columns
};

/// @brief A demo's opening: require_gpu(), query GPU 0 and measure the copy bandwidth. Exits with a
/// message if either fails.
Session start();

/// @brief time_kernel(), or, if a CUDA call failed, "<name>: <error>" on standard error and exit
/// status 1.
TimingStats time_or_exit(const std::string &name, const std::function<void()> &launch, const TimingOptions &opts = {},
                         const std::function<void()> &setup = {});

/// @brief The input of the reduction demos (ch03_10 to ch03_14): n ints in [0, 255] from seed 2024
/// (the book's `rand() & 0xFF`), their sum, a device copy for kernels that only read it and, for kernels
/// that reduce in place, a working copy that restore() refills before every run.
struct ReductionInput {
  std::vector<int> host;       ///< the ints
  long long sum = 0;           ///< their exact sum (cpu::sum)
  DeviceBuffer<int> pristine;  ///< the ints on the device, for kernels that only read them
  DeviceBuffer<int> work;      ///< the in-place kernels' copy (empty without in_place)

  /// @brief Enqueues the copy of pristine into work on the default stream (untimed setup).
  void restore() const;
};

/// @brief Uploads ReductionInput::host of @p n ints; allocates ReductionInput::work only when
/// @p in_place.
ReductionInput reduction_input(std::size_t n, bool in_place = true);

/// @brief Downloads @p out and returns the sum of its first @p count elements (the partial sums
/// of a reduction's blocks).
long long sum_of_partials(const DeviceBuffer<int> &out, std::size_t count);

/// @brief The sumMatrix demos' matrices (ch03_07 to ch03_09): a and b filled with constant bytes
/// on the device (no host upload of GiBs), c for the result, and the value every element of c
/// must then hold.
struct MatrixSum {
  DeviceBuffer<float> a;  ///< every float 0.74901962 (bytes 0x3F)
  DeviceBuffer<float> b;  ///< every float 3.0039215 (bytes 0x40)
  DeviceBuffer<float> c;  ///< the result, contents undefined
  float want = 0.0f;      ///< a + b
};

/// @brief Allocates and fills a MatrixSum of @p elems floats per matrix.
MatrixSum matrix_sum(std::size_t elems);

/// @brief Downloads @p c into @p host and says whether every element equals @p want.
bool every_element_is(const DeviceBuffer<float> &c, float want, std::vector<float> *host);

/// @brief One cell of a Table row: a number, formatted by its column, or text.
class Cell {
 public:
  /// @brief A number, printed with the column's table or CSV format (%f, %d or %u).
  Cell(double v) : number_(true), value_(v) {}  // NOLINT: implicit on purpose
  /// @brief An int, printed like a number.
  Cell(int v) : Cell(static_cast<double>(v)) {}  // NOLINT
  /// @brief An unsigned int, printed like a number.
  Cell(unsigned v) : Cell(static_cast<double>(v)) {}  // NOLINT
  /// @brief Text, padded to the column's width in the table, as is in the CSV.
  Cell(const char *s) : table_(s), csv_(s) {}  // NOLINT
  /// @brief Text, padded to the column's width in the table, as is in the CSV.
  Cell(const std::string &s) : table_(s), csv_(s) {}  // NOLINT

  /// @brief Text that differs between the table (@p table) and the CSV (@p csv).
  static Cell text(const std::string &table, const std::string &csv);
  /// @brief @p table printed as is (no padding: it may span the next columns, see covered()),
  /// @p csv in the CSV.
  static Cell raw(const std::string &table, const std::string &csv);
  /// @brief Nothing in the table (an earlier raw() cell spans this column), empty in the CSV.
  static Cell covered();

 private:
  friend class Table;
  Cell() = default;
  bool number_ = false;
  bool raw_ = false;
  bool covered_ = false;
  double value_ = 0.0;
  std::string table_, csv_;
};

/// @brief One column of a Table.
struct Column {
  /// @brief Its CSV header name; nullptr: the column is in the table only.
  const char *csv_name;
  /// @brief Its table header; nullptr: the column is in the CSV only.
  const char *header;
  /// @brief printf format of a number in the table, e.g. "%9.4f", "%6.1f%%", "%5.2fx", "%-27s"
  /// (for text). Its width, '-' flag and text after the conversion give the column's width and
  /// alignment, which the header and text cells are padded to.
  const char *format = "%s";
  /// @brief printf format of a number in the CSV, e.g. "%.4f".
  const char *csv_format = "%s";
  /// @brief What the table prints before the cell ("" before the first column of a line).
  const char *sep = " ";
};

/// @brief A demo's table: printed as aligned columns, or with `--csv` as CSV (a header line, then
/// one line per row, cells as they are: no quoting) on standard output.
class Table {
 public:
  /// @brief A table of @p columns, printed as CSV when @p csv.
  Table(std::vector<Column> columns, bool csv);

  /// @brief True when the table prints CSV.
  bool csv() const { return csv_; }
  /// @brief Prints the header line: each time as a table, once as CSV.
  void header();
  /// @brief Prints one row: one cell per column, in the columns' order (a table-only or CSV-only
  /// column's cell is left out of the other form).
  void row(std::initializer_list<Cell> cells);

 private:
  std::vector<Column> columns_;
  bool csv_;
  bool csv_header_done_ = false;
};

/// @brief The columns of the ch03_10 and ch03_11 reduction tables, whose CSV tools/plots.py reads:
/// kernel (in the table as @p kernel_format, e.g. "%-22s"), its grid when @p grid, ms, GB/s, % of
/// the copy bandwidth, step and cumulative speed-up, the book's ms and cumulative speed-up, and
/// the result (table only). A row: name, [grid], ms, GB/s, %copy, step, cumulative, book ms, book
/// cumulative, result.
std::vector<Column> reduction_columns(const char *kernel_format, bool grid);

/// @brief printf into a std::string, for a cell whose text a demo composes ("(32,16)").
std::string format(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

}  // namespace cudalab::demo
