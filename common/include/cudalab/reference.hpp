/// @file reference.hpp
/// @brief CPU references the tests compare GPU results against.
#pragma once

#include <cstddef>
#include <vector>

namespace cudalab::cpu {

/// @brief Exact sum of all elements (64-bit accumulator: no overflow for the labs' sizes).
long long sum(const std::vector<int> &data);

/// @brief Sum of each consecutive chunk of @p chunk elements; the last chunk may be shorter.
/// This is what a reduction kernel whose block b covers elements [b*chunk, (b+1)*chunk) writes
/// to g_odata[b].
std::vector<long long> chunk_sums(const std::vector<int> &data, std::size_t chunk);

/// @brief The seeds' recursiveReduce (interleaved pairs, in place) fixed for any size: it folds
/// the upper half onto the lower half, carrying the odd element. Destroys @p data.
long long recursive_reduce(std::vector<int> &data);

}  // namespace cudalab::cpu
