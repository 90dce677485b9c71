// ch05_06 checks of the compiled code (no GPU): the ordering a run can hardly show. A missing
// fence gives a wrong sum only when a block's partial-sum store is still on its way while the
// last block reads it -- rare on real hardware, so values alone cannot grade it. The build
// compiles the student's file to PTX; reduceSinglePass must order its memory operations:
//  - release: a GPU-scope fence (membar.gl / membar.sys / fence.sc.gpu / fence.acq_rel.gpu ...)
//    between the global store of the partial sum and the ticket atomic, or the atomic itself
//    release/acq_rel (cuda::atomic_ref::fetch_add(1, cuda::memory_order_acq_rel));
//  - acquire: a GPU-scope fence after the ticket atomic, or an acquire/acq_rel atomic, or an
//    ld.acquire.
// __threadfence_block() (membar.cta) orders only within the block and does not count; nor does a
// release/acquire atomic or load of block or cluster scope (cuda::thread_scope_block gives
// atom.acq_rel.cta: it orders nothing between blocks), and the ticket itself must be a GPU-scope
// atomic (atomicAdd_block's atom.cta is atomic only within a block). An atom or ld without a scope
// is .gpu.
#include "ptx_code.hpp"

#include "cudalab/testing.cuh"

namespace {

bool is_gpu_fence(std::string op) {
  if (!op.empty() && op.back() == ';') op.pop_back();  // "membar.gl;" has no operands
  if (op.rfind("membar.", 0) == 0) return op == "membar.gl" || op == "membar.sys";
  if (op.rfind("fence.", 0) != 0) return false;
  const bool strong = op.find(".sc") != std::string::npos || op.find(".acq_rel") != std::string::npos;
  const bool scope = op.find(".gpu") != std::string::npos || op.find(".sys") != std::string::npos;
  return strong && scope;
}

/// True unless @p op names a scope narrower than the GPU (PTX's default scope is .gpu).
bool gpu_scope(const std::string &op) {
  return op.find(".cta") == std::string::npos && op.find(".cluster") == std::string::npos;
}

/// A release (@p acquire false) or acquire (true) atomic of GPU or system scope.
bool orders(const std::string &atom, bool acquire) {
  const bool sem =
      atom.find(".acq_rel") != std::string::npos || atom.find(acquire ? ".acquire" : ".release") != std::string::npos;
  return sem && gpu_scope(atom);
}

bool is_global_store(const std::string &op) {
  return op.rfind("st.", 0) == 0 && op.find(".shared") == std::string::npos && op.find(".local") == std::string::npos &&
         op.find(".param") == std::string::npos;
}

int first_atomic(const ptx_code::Kernel &k) {
  for (std::size_t i = 0; i < k.opcodes.size(); ++i)
    if (k.opcodes[i].rfind("atom.", 0) == 0 && k.opcodes[i].find(".shared") == std::string::npos)
      return static_cast<int>(i);
  return -1;
}

class OrderingCode : public cudalab::HostTest {
 protected:
  void SetUp() override {
    cudalab::HostTest::SetUp();
    k_ = ptx_code::kernel(CUDALAB_STUDENT_PTX, {"_Z16reduceSinglePass"});
    if (!k_.found) return;
    atom_ = first_atomic(k_);
    std::printf("[ CODE     ] reduceSinglePass (PTX): ticket %s; fences:",
                atom_ < 0 ? "(none)" : k_.lines[atom_].c_str());
    for (const std::string &op : k_.opcodes)
      if (op.rfind("membar", 0) == 0 || op.rfind("fence", 0) == 0) std::printf(" %s", op.c_str());
    std::printf("\n");
  }
  ptx_code::Kernel k_;
  int atom_ = -1;
};

TEST_F(OrderingCode, PartialSumIsReleasedBeforeTheTicket) {
  ASSERT_TRUE(k_.found) << k_.error;
  ASSERT_GE(atom_, 0) << "reduceSinglePass has no global atomic (atom.*) in its PTX: the ticket must come from "
                         "atomicAdd(counter, 1) or a cuda::atomic_ref fetch_add (check of the compiled code, "
                      << CUDALAB_STUDENT_PTX << ")";
  const std::string &ticket = k_.opcodes[atom_];
  // A block-scope atomic (atomicAdd_block) is atomic only among the threads of one block: two
  // blocks may draw the same ticket, and then no block or two blocks add the partials.
  ASSERT_TRUE(gpu_scope(ticket)) << "reduceSinglePass takes its ticket with a block-scope atomic (" << ticket
                                 << "): it is atomic only within one block, so two blocks can draw the same ticket. "
                                    "Use atomicAdd (GPU scope) or cuda::atomic_ref with cuda::thread_scope_device "
                                    "(check of the compiled code, "
                                 << CUDALAB_STUDENT_PTX << ")";
  if (orders(ticket, false)) return;
  int store = -1;
  for (int i = 0; i < atom_; ++i) {
    if (is_global_store(k_.opcodes[i])) store = i;
    if (store >= 0 && i > store && is_gpu_fence(k_.opcodes[i])) return;
  }
  FAIL() << "reduceSinglePass takes its ticket (" << ticket << ") without a GPU-scope fence between the store of "
         << "the partial sum and the atomic, and the atomic is not a release: another block can see the ticket "
         << "before the partial sum. Put __threadfence() between partial[blockIdx.x] = sum and atomicAdd, or use "
         << "cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*counter).fetch_add(1, "
         << "cuda::memory_order_acq_rel)"
         << (gpu_scope(ticket) ? "" : "; a block-scope atomic orders nothing between blocks") << " ("
         << (store < 0 ? "no global store before the atomic; " : "") << "check of the compiled code, "
         << CUDALAB_STUDENT_PTX << ")";
}

TEST_F(OrderingCode, LastBlockAcquiresBeforeReadingThePartials) {
  ASSERT_TRUE(k_.found) << k_.error;
  ASSERT_GE(atom_, 0) << "reduceSinglePass has no global atomic (atom.*) in its PTX (check of the compiled code, "
                      << CUDALAB_STUDENT_PTX << ")";
  const std::string &ticket = k_.opcodes[atom_];
  if (orders(ticket, true)) return;
  for (std::size_t i = atom_ + 1; i < k_.opcodes.size(); ++i) {
    const std::string &op = k_.opcodes[i];
    if (is_gpu_fence(op) || (op.rfind("ld.", 0) == 0 && op.find(".acquire") != std::string::npos && gpu_scope(op)))
      return;
    // The Programming Guide's own example reads the partials through a volatile pointer: accepted,
    // although the PTX memory model makes ld.volatile a relaxed load, not an acquire (README).
    if (op.rfind("ld.volatile.global", 0) == 0) return;
  }
  FAIL()
      << "after its ticket (" << ticket << ") reduceSinglePass has no GPU-scope fence, no acquire or volatile load "
      << "and the atomic is not an acquire: the last block may read partial sums that it has not yet been guaranteed "
      << "to see (its L1 is not coherent with the other SMs' stores). Call __threadfence() once the ticket shows "
      << "this block is last (before __syncthreads()), or make the fetch_add memory_order_acq_rel"
      << (gpu_scope(ticket) ? ""
                            : " with cuda::thread_scope_device (a block-scope atomic orders nothing between blocks)")
      << " (check of "
      << "the compiled code, " << CUDALAB_STUDENT_PTX << ")";
}

}  // namespace
