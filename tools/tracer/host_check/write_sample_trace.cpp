/// @file write_sample_trace.cpp
/// @brief Format check without a GPU: writes, with the tracer's own writer (trace_writer.hpp), a
/// trace of one warp doing a coalesced float load (lane i reads base + 4 i) and a strided one
/// (lane i reads base + 128 i), plus a barrier. test_render.py compiles and runs this, reads the
/// file back with render.py, and checks 4 and 32 sectors. Usage: write_sample_trace <out.jsonl>
#include "../trace_format.h"
#include "../trace_writer.hpp"

#include <cstdio>

/// @brief One record of thread @p t in block 0.
static tracer::Record make(uint8_t kind, uint64_t pc, uint64_t address, uint16_t t, uint8_t flags) {
  tracer::Record r{};
  r.address = address;
  r.pc = pc;
  r.block = 0;
  r.active_mask = 0xffffffffu;
  r.thread = t;
  r.kind = kind;
  r.size = kind == tracer::kGlobal ? 4 : 0;
  r.flags = flags;
  return r;
}

/// @brief Writes the sample trace to argv[1].
int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s out.jsonl\n", argv[0]);
    return 2;
  }
  std::FILE *out = std::fopen(argv[1], "w");
  if (out == nullptr) return 1;
  const uint64_t base = 0x7f0000000000ull;  // 256-byte aligned, as cudaMalloc returns
  tracer::LaunchInfo info;
  info.id = 0;
  info.kernel = "sample(float const*, \"quoted\")";
  info.mangled = "_Z6samplePKf";
  info.grid[0] = 1;
  info.block[0] = 32;
  info.traced_blocks = 1;
  info.records = 3 * 32;
  tracer::write_launch(out, info);
  for (uint16_t t = 0; t < 32; ++t) tracer::write_record(out, 0, make(tracer::kGlobal, 0x100, base + 4u * t, t, tracer::kRead));
  for (uint16_t t = 0; t < 32; ++t) tracer::write_record(out, 0, make(tracer::kBarrier, 0x110, 0, t, 0));
  for (uint16_t t = 0; t < 32; ++t)
    tracer::write_record(out, 0, make(tracer::kGlobal, 0x120, base + 128u * t, t, tracer::kRead));
  tracer::write_skipped(out, "sample line: not a real skip");
  std::fclose(out);
  return 0;
}
