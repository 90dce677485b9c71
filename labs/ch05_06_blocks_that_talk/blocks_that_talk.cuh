/// @file blocks_that_talk.cuh
/// @brief Lab ch05_06 -- Inter-block communication: fences, release/acquire and the last block (a single-pass sum).
///
/// Blocks of one grid share data only through global memory and atomics: each SM has its own L1,
/// and the L1s are not kept coherent with each other. A single-pass sum lets every block publish
/// its partial sum, take a ticket from a counter, and lets the last block to arrive add the
/// partials. It is right only if each partial is visible before its block's ticket is (a release:
/// `__threadfence()` or a release atomic) and the last block reads the partials after it has seen
/// every ticket (an acquire).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

/// Most blocks the launcher uses, and so the number of partial sums it needs at most.
constexpr int kMaxSinglePassBlocks = 1024;

/// Threads per block of the demo and of the timed tests.
constexpr int kSinglePassBlock = 256;

/// @brief Single-pass sum of in[0, n) into *out.
///
/// Contract:
///  - blockDim.x is a power of two from 64 to 1024; gridDim.x >= 1 (any grid of fewer than 2^31
///    threads in all: the elements are covered by a grid-stride loop,
///    i = blockIdx.x * blockDim.x + threadIdx.x, step gridDim.x * blockDim.x; use a 64-bit index:
///    i + step passes 2^31 when n is near it);
///  - sums are 64-bit (long long) from the first addition on: an int partial sum may overflow;
///  - block b writes its sum to partial[b] (partial holds gridDim.x entries; nothing else of it
///    is written), then one thread takes a ticket: atomicAdd(counter, 1);
///  - the block whose ticket is gridDim.x - 1 arrived last: it adds partial[0, gridDim.x) and
///    writes *out, then sets *counter back to 0 so the next launch finds it at 0;
///  - ordering: the partial-sum store must be visible to other blocks before the ticket is
///    (`__threadfence()` between the store and the atomicAdd, or a release/acq_rel
///    cuda::atomic_ref::fetch_add), and the last block must read the partials only after an
///    acquire (`__threadfence()` after it has seen its ticket, or an acquire/acq_rel atomic);
///  - n == 0 is allowed: *out = 0.
/// *counter must be 0 before the first launch (the caller zeroes it once, when it allocates it);
/// the kernel leaves it at 0. Launches that share one counter must not run at the same time.
__global__ void reduceSinglePass(const int *in, long long *partial, unsigned int *counter, long long *out, int n);

/// @brief Grid of the launcher: one block per @p block elements, ceil(n / block), but at least 1
/// (n == 0 still needs one block to write *out = 0) and at most kMaxSinglePassBlocks. 0 when
/// @p block is not a power of two from 64 to 1024. Host function, tested without a GPU.
int single_pass_grid(int n, int block);

/// @brief Launches reduceSinglePass<<<single_pass_grid(n, block), block, 0, stream>>>.
/// @p partial holds at least single_pass_grid(n, block) entries (kMaxSinglePassBlocks is always
/// enough). Returns cudaErrorInvalidValue without launching when @p block is not a power of two
/// from 64 to 1024 or n < 0, otherwise the launch's error (cudaGetLastError()).
cudaError_t launch_reduce_single_pass(const int *in, long long *partial, unsigned int *counter, long long *out,
                                      int n, int block, cudaStream_t stream = 0);

/// What one SM offers (cudaDeviceProp and the architecture's allocation rules).
struct SmLimits {
  int sm_count;                 ///< multiProcessorCount
  int max_threads_per_sm;       ///< maxThreadsPerMultiProcessor
  int max_blocks_per_sm;        ///< maxBlocksPerMultiProcessor
  int regs_per_sm;              ///< regsPerMultiprocessor
  int sub_partitions;           ///< warp schedulers per SM, each with its own register file (4)
  int reg_alloc_unit;           ///< registers are given to a warp in multiples of this (256)
  std::size_t smem_per_sm;      ///< sharedMemPerMultiprocessor (bytes)
  std::size_t smem_reserved_per_block;  ///< reservedSharedMemPerBlock (1024 on sm_80 and newer)
  std::size_t smem_alloc_unit;  ///< shared memory is given to a block in multiples of this (256 on 7.x, 128 from 8.0)
};

/// What one block of a kernel needs (cudaFuncAttributes and the launch).
struct KernelUse {
  int threads_per_block;        ///< blockDim.x * blockDim.y * blockDim.z
  int regs_per_thread;          ///< cudaFuncAttributes::numRegs
  std::size_t smem_per_block;   ///< static (sharedSizeBytes) + dynamic shared memory, in bytes
};

/// @brief The largest grid a cooperative launch (cudaLaunchCooperativeKernel) accepts for a kernel
/// that uses @p use: every block must be resident at once, so this is blocks-per-SM x sm_count.
/// Blocks per SM is the smallest of these limits:
///  - threads: max_threads_per_sm / (warps per block x 32), warps per block = ceil(threads / 32);
///  - block slots: max_blocks_per_sm;
///  - registers: each warp gets regs_per_thread x 32 registers rounded up to reg_alloc_unit; each
///    sub-partition (regs_per_sm / sub_partitions registers) holds a whole number of such warps;
///    blocks = (warps that fit in all sub-partitions) / warps per block. No limit when
///    regs_per_thread is 0;
///  - shared memory: smem_per_sm / (smem_per_block + smem_reserved_per_block, rounded up to
///    smem_alloc_unit). No limit when that sum is 0.
/// 0 when one block does not fit on an SM at all (too many threads, registers or bytes), or when
/// threads_per_block < 1. Host function, tested without a GPU on made-up SMs; the demo compares
/// it with cudaOccupancyMaxActiveBlocksPerMultiprocessor x SMs.
int max_cooperative_blocks(const SmLimits &sm, const KernelUse &use);

// In the host test program, each call of a host function above runs in a process of its own
// (cudalab/apart.hpp, generated per lab); elsewhere the file is not there.
#if __has_include("cudalab_apart_blocks_that_talk.hpp")
#include "cudalab_apart_blocks_that_talk.hpp"
#endif
