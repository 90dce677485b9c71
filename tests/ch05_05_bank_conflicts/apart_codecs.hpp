/// @file apart_codecs.hpp
/// @brief warp_conflict_degree(word_index, lanes) reads `lanes` words: what travels to the process
/// that runs it (cudalab/apart.hpp; included by the generated cudalab_apart_bank_conflicts.hpp).
#pragma once

#include "bank_conflicts.cuh"
#include "cudalab/apart.hpp"

template <>
struct cudalab::apart::ArrayParam<&::warp_conflict_degree, 0> {
  static constexpr int count_param = 1;
};
