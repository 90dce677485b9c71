/// @file constant_memory.cuh
/// @brief Lab ch05_03 -- constant memory: coefficients that every thread of a warp reads at the
/// same address (a broadcast), and what the same memory costs when the lanes read different
/// addresses (serialisation).
///
/// All kernels evaluate polynomials with Horner's rule, y = (((c[m-1] x + c[m-2]) x + ...) x + c[0]):
///  * polynomialConstant / polynomialGlobal: ONE polynomial for every element -- each coefficient
///    is read by all 32 lanes of a warp at the same address (uniform access);
///  * lookupConstant / lookupGlobal: element i uses one of kNumSets polynomials, chosen by key[i]
///    -- the lanes of a warp read different addresses (non-uniform access).
/// Every kernel handles one element per thread: launch blocks_for(n, block) blocks of any block
/// size, for any n >= 1.
#pragma once

#include <cuda_runtime.h>

/// Capacity of the constant-memory coefficient array of polynomialConstant (floats).
constexpr int kMaxCoefficients = 64;

/// Number of polynomials ("coefficient sets") a lookup kernel chooses from (key in [0, kNumSets)).
constexpr int kNumSets = 32;

/// Coefficients per set of the lookup kernels (polynomials of degree kSetCoefficients - 1).
constexpr int kSetCoefficients = 16;

/// Floats in a lookup table. Layout, coefficient-major: coefficient k of set s is at
/// [k * kNumSets + s], so coefficient k of all 32 sets is 32 neighbouring floats (128 bytes).
constexpr int kTableSize = kNumSets * kSetCoefficients;

/// @brief YOURS: copies @p count coefficients (c[0] = constant term) from host memory into the
/// constant-memory array that polynomialConstant reads, with cudaMemcpyToSymbol. Entries from
/// @p count on keep whatever they held.
/// @param h_coef host array of @p count floats
/// @param count number of coefficients, 1 <= count <= kMaxCoefficients
/// @return cudaSuccess; cudaErrorInvalidValue (and nothing copied) when count is out of range or
/// h_coef is null; otherwise the error of the copy.
cudaError_t setCoefficients(const float *h_coef, int count);

/// @brief YOURS: y[i] = sum_k c[k] * x[i]^k for i < n, Horner's rule, with the coefficients read
/// from constant memory (uploaded by setCoefficients). Every lane reads c[k] at the same time:
/// one broadcast from the constant cache per warp (a constant operand, LDC or ULDC), so the only
/// global load is x[i] -- the coefficient reads stay off the load/store path.
/// @param x input, n floats
/// @param y output, n floats (nothing at index >= n is written)
/// @param n number of elements
/// @param count number of coefficients to use (the count of the latest setCoefficients call)
__global__ void polynomialConstant(const float *x, float *y, int n, int count);

/// @brief GIVEN (the comparison): the same polynomial with the coefficients read from global memory
/// through ordinary loads of coef[k]: all lanes read the same address, so each coefficient is one
/// global load instruction per warp (an L1 hit) -- count + 1 global loads per warp with x[i].
/// @param x input, n floats
/// @param coef device array of @p count coefficients
/// @param y output, n floats
/// @param n number of elements
/// @param count number of coefficients, 1 <= count <= kMaxCoefficients
__global__ void polynomialGlobal(const float *x, const float *coef, float *y, int n, int count);

/// @brief GIVEN: uploads a lookup table of kTableSize floats (layout: see kTableSize) into the
/// constant-memory table that lookupConstant reads.
/// @param h_sets host array of kTableSize floats
/// @return the error of cudaMemcpyToSymbol
cudaError_t setCoefficientSets(const float *h_sets);

/// @brief GIVEN (the pattern not to copy): y[i] = polynomial number key[i] at x[i], Horner's rule
/// over kSetCoefficients coefficients read from the constant-memory table. When the lanes of a warp
/// hold d different keys, every table read is served d times, one address after the other.
/// @param x input, n floats
/// @param key set of each element, n ints in [0, kNumSets)
/// @param y output, n floats
/// @param n number of elements
__global__ void lookupConstant(const float *x, const int *key, float *y, int n);

/// @brief YOURS: the same as lookupConstant, with the table read from global memory (@p sets) --
/// through the read-only path, __ldg(&sets[...]) -- not from constant memory.
/// @param x input, n floats
/// @param key set of each element, n ints in [0, kNumSets)
/// @param sets device array of kTableSize floats (layout: see kTableSize)
/// @param y output, n floats (nothing at index >= n is written)
/// @param n number of elements
__global__ void lookupGlobal(const float *x, const int *key, const float *sets, float *y, int n);

/// @brief Blocks for one thread per element: ceil(n / block).
/// @param n number of elements (>= 1)
/// @param block threads per block
inline unsigned int blocks_for(int n, unsigned int block) { return (static_cast<unsigned int>(n) + block - 1) / block; }

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_constant_memory.hpp")
#include "cudalab_apart_constant_memory.hpp"
#endif
