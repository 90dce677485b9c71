/// @file apart_codecs.hpp
/// @brief The host arrays that setCoefficients and setCoefficientSets upload: what travels to the
/// process that runs them where launchers run apart (cudalab/apart.hpp; included by the generated
/// cudalab_apart_constant_memory.hpp).
#pragma once

#include "constant_memory.cuh"
#include "cudalab/apart.hpp"

#ifdef CUDALAB_APART_LAUNCHERS  // elsewhere they are called in the test program
template <>
struct cudalab::apart::ArrayParam<&::setCoefficients, 0> {
  static constexpr int count_param = 1;  // count floats
};

template <>
struct cudalab::apart::ArrayParam<&::setCoefficientSets, 0> {
  static constexpr std::size_t length = kTableSize;
};
#endif
