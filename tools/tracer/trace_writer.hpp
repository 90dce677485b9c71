/// @file trace_writer.hpp
/// @brief Writes the trace file render.py reads: JSON lines, one object per line. Host-only C++17,
/// no CUDA or Compute Sanitizer header, so that the format can be checked on any machine
/// (host_check/write_sample_trace.cpp writes a file with it; test_render.py reads that file back).
///
/// Lines, in file order:
///   {"type":"skipped","reason":"..."}                       the tracer could not run (and why)
///   {"type":"launch","id":N,"kernel":"...","mangled":"...","grid":[x,y,z],"block":[x,y,z],
///    "traced_blocks":B,"records":R,"dropped":D}              one per traced launch, then its R records:
///   {"l":N,"b":block,"t":thread,"k":"g|s|bar|sw|be|bx","pc":P,"a":A,"n":size,"f":flags,"m":mask}
/// Records of one launch keep the order in which the device claimed their slots, so the records
/// of one thread are in that thread's program order.
///
/// The hazard file (TRACER_HAZARDS, hazards.hpp) has one line per traced launch instead:
///   {"type":"hazards","id":N,"kernel":"...","grid":[..],"block":[..],"traced_blocks":B,
///    "accesses":A,"dropped":D,"hazards":H,"first":[{"block":b,"address":a,"offset":o,"writer":t,
///    "reader":t,"writer_pc":p,"reader_pc":p,"size":s,"step":k,"writer_phase":w,"reader_phase":r,
///    "same_warp":true|false},...]}
/// (`offset`: bytes from the lowest global address the block accessed).
#pragma once

#include "hazards.hpp"
#include "trace_format.h"

#include <cinttypes>
#include <cstdio>
#include <string>

namespace tracer {

/// @brief The short name of a RecordKind in the trace file ("g", "s", "bar", "sw", "be", "bx").
inline const char *kind_name(uint8_t kind) {
  switch (kind) {
    case kGlobal: return "g";
    case kShared: return "s";
    case kBarrier: return "bar";
    case kSyncwarp: return "sw";
    case kBlockEnter: return "be";
    case kBlockExit: return "bx";
    default: return "?";
  }
}

/// @brief @p text as a JSON string literal (quotes, backslashes and control characters escaped).
inline std::string json_string(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

/// @brief Writes the line saying that tracing was skipped, and why.
inline void write_skipped(std::FILE *out, const std::string &reason) {
  std::fprintf(out, "{\"type\":\"skipped\",\"reason\":%s}\n", json_string(reason).c_str());
}

/// @brief What the launch line says about one traced launch.
struct LaunchInfo {
  uint32_t id = 0;             ///< launch number in this trace, from 0
  std::string kernel;          ///< the kernel's name, demangled where possible
  std::string mangled;         ///< the kernel's name as the API reports it
  uint32_t grid[3] = {1, 1, 1};   ///< gridDim
  uint32_t block[3] = {1, 1, 1};  ///< blockDim
  uint32_t traced_blocks = 0;  ///< blocks with a linear index below this were traced
  uint32_t records = 0;        ///< records that follow
  uint32_t dropped = 0;        ///< records lost because the buffer was full
};

/// @brief Writes the launch line that precedes a launch's records.
inline void write_launch(std::FILE *out, const LaunchInfo &l) {
  std::fprintf(out,
               "{\"type\":\"launch\",\"id\":%u,\"kernel\":%s,\"mangled\":%s,\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],"
               "\"traced_blocks\":%u,\"records\":%u,\"dropped\":%u}\n",
               l.id, json_string(l.kernel).c_str(), json_string(l.mangled).c_str(), l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
               l.block[2], l.traced_blocks, l.records, l.dropped);
}

/// @brief Writes one record of launch @p launch_id.
inline void write_record(std::FILE *out, uint32_t launch_id, const Record &r) {
  std::fprintf(out,
               "{\"l\":%u,\"b\":%u,\"t\":%u,\"k\":\"%s\",\"pc\":%" PRIu64 ",\"a\":%" PRIu64
               ",\"n\":%u,\"f\":%u,\"m\":%u}\n",
               launch_id, r.block, static_cast<unsigned>(r.thread), kind_name(r.kind), r.pc, r.address,
               static_cast<unsigned>(r.size), static_cast<unsigned>(r.flags), r.active_mask);
}

/// @brief Writes the hazard line of one launch (the hazard file, see the top of this file).
inline void write_hazards(std::FILE *out, const LaunchInfo &l, const HazardReport &h) {
  std::fprintf(out,
               "{\"type\":\"hazards\",\"id\":%u,\"kernel\":%s,\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],"
               "\"traced_blocks\":%u,\"accesses\":%" PRIu64 ",\"dropped\":%u,\"hazards\":%" PRIu64 ",\"first\":[",
               l.id, json_string(l.kernel).c_str(), l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
               l.traced_blocks, h.accesses, l.dropped, h.hazards);
  for (size_t i = 0; i < h.first.size(); ++i) {
    const Hazard &z = h.first[i];
    std::fprintf(out,
                 "%s{\"block\":%u,\"address\":%" PRIu64 ",\"offset\":%" PRIu64 ",\"writer\":%u,\"reader\":%u,"
                 "\"writer_pc\":%" PRIu64 ",\"reader_pc\":%" PRIu64 ",\"size\":%u,\"step\":%u,\"writer_phase\":%u,"
                 "\"reader_phase\":%u,\"same_warp\":%s}",
                 i ? "," : "", z.block, z.address, z.address - z.block_low, unsigned(z.writer), unsigned(z.reader),
                 z.writer_pc, z.reader_pc, unsigned(z.size), z.step, z.writer_phase, z.reader_phase,
                 z.same_warp ? "true" : "false");
  }
  std::fprintf(out, "]}\n");
}

}  // namespace tracer
