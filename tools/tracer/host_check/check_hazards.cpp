/// @file check_hazards.cpp
/// @brief The hazard check (hazards.hpp) without a GPU: reads one launch's records as the device
/// wrote them (32-byte tracer::Record, in slot order) from a file and prints the launch's hazard
/// line as the tracer writes it (trace_writer.hpp). tests/test_hazards.py writes the records
/// (synthetic warps, and the real H100 traces of the reference kernels in tests/fixtures/) and
/// reads the line back. Usage: check_hazards <records.bin>
#include "../hazards.hpp"
#include "../trace_writer.hpp"

#include <cstdio>
#include <vector>

/// @brief Prints the hazard line of the records in argv[1].
int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s records.bin\n", argv[0]);
    return 2;
  }
  std::FILE *in = std::fopen(argv[1], "rb");
  if (in == nullptr) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  std::vector<tracer::Record> records;
  tracer::Record r{};
  while (std::fread(&r, sizeof r, 1, in) == 1) records.push_back(r);
  std::fclose(in);
  tracer::LaunchInfo info;
  info.kernel = "check";
  info.records = static_cast<uint32_t>(records.size());
  tracer::write_hazards(stdout, info, tracer::find_global_hazards(records.data(), records.size()));
  return 0;
}
