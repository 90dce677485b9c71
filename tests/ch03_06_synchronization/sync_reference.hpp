/// @file sync_reference.hpp
/// @brief CPU references for lab ch03_06, shared by the GoogleTest cases and the sanitizer driver.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace sync_ref {

/// @brief What reverseBlock writes: every chunk of @p block elements reversed in place.
inline std::vector<int> reverse_blocks(const std::vector<int> &in, unsigned int block) {
  std::vector<int> out(in.size());
  for (std::size_t start = 0; start < in.size(); start += block) {
    const std::size_t count = std::min<std::size_t>(block, in.size() - start);
    for (std::size_t i = 0; i < count; ++i) out[start + i] = in[start + count - 1 - i];
  }
  return out;
}

/// @brief What smoothTile writes: each chunk smoothed @p steps times, t[i] = t[i-1] + t[i] + t[i+1]
/// with 0 outside the chunk, in unsigned (wrapping) arithmetic.
inline std::vector<unsigned int> smooth_blocks(const std::vector<unsigned int> &in, unsigned int block, int steps) {
  std::vector<unsigned int> out(in.size());
  std::vector<unsigned int> t, next;
  for (std::size_t start = 0; start < in.size(); start += block) {
    const std::size_t count = std::min<std::size_t>(block, in.size() - start);
    t.assign(in.begin() + start, in.begin() + start + count);
    for (int s = 0; s < steps; ++s) {
      next.resize(count);
      for (std::size_t i = 0; i < count; ++i)
        next[i] = (i > 0 ? t[i - 1] : 0u) + t[i] + (i + 1 < count ? t[i + 1] : 0u);
      t.swap(next);
    }
    std::copy(t.begin(), t.end(), out.begin() + start);
  }
  return out;
}

/// @brief What subtractGlobalMin writes: in[i] - min(in).
inline std::vector<int> subtract_min(const std::vector<int> &in) {
  const int m = *std::min_element(in.begin(), in.end());
  std::vector<int> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] - m;
  return out;
}

}  // namespace sync_ref
