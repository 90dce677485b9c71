// ch03_13 checks of the compiled code (no GPU needed): the CDP2 rules that the results cannot show.
// A launch from the GPU compiles to two calls into the device runtime (CUDA 12+): one that gets a
// parameter buffer (...GetParameterBuffer...) and one that launches it (...LaunchDevice...), whose
// second argument is the stream: 0 for a plain <<<...>>>, 3 for cudaStreamTailLaunch, 4 for
// cudaStreamFireAndForget. The PTX of your nested.cu (compiled by the build with relocatable
// device code, CUDALAB_STUDENT_PTX) shows:
//  * that each kernel launches from the GPU at all (a flat reduction gives the same sums);
//  * a block barrier before gpuRecursiveReduceNosync's child launch (without it, the child sees
//    only thread 0's writes; the launch takes microseconds, so the race never shows in a value);
//  * that gpuRecursiveReduce2 tail-launches (a plain launch races with the other blocks, but the
//    H100 schedules the child after them, so it gives the right sums: README.md);
//  * that nestedHelloWorld reads the launch's error (cudaGetLastError) for record_launch.
#include "ptx_code.hpp"

#include "cudalab/testing.cuh"

#include <cctype>
#include <cstdio>
#include <string>

namespace {

class NestedCode : public cudalab::HostTest {
 protected:
  static ptx_code::Kernel load(const char *mangled) { return ptx_code::kernel(CUDALAB_STUDENT_PTX, {mangled}); }

  /// The stream argument of every device-side launch in @p k: the immediate value, or -1 when it
  /// is not a constant the compiler could see.
  static std::vector<long long> launch_streams(const ptx_code::Kernel &k) {
    std::vector<long long> streams;
    for (std::size_t i = 0; i < k.lines.size(); ++i) {
      if (k.lines[i].find("LaunchDevice") == std::string::npos) continue;
      long long stream = -1;
      for (std::size_t j = i; j-- > 0 && i - j < 16;) {  // st.param.b64 [param1+0], X; just before the call
        const std::string &line = k.lines[j];
        if (line.find("st.param") == std::string::npos || line.find("[param1") == std::string::npos) continue;
        std::string value = line.substr(line.find(',') + 1);
        value = value.substr(0, value.find(';'));
        value.erase(0, value.find_first_not_of(" \t"));
        if (!value.empty() && value[0] == '%') {  // a register: find the constant moved into it
          for (std::size_t m = j; m-- > 0;) {
            const std::string &mv = k.lines[m];
            if (mv.find("mov.") == std::string::npos || mv.find(value + ",") == std::string::npos) continue;
            value = mv.substr(mv.find(value + ",") + value.size() + 1);
            value = value.substr(0, value.find(';'));
            value.erase(0, value.find_first_not_of(" \t"));
            break;
          }
        }
        if (!value.empty() && (std::isdigit(static_cast<unsigned char>(value[0])) != 0))
          stream = std::stoll(value, nullptr, 0);
        break;
      }
      streams.push_back(stream);
    }
    return streams;
  }
};

TEST_F(NestedCode, HelloWorldLaunchesAndChecksTheLaunch) {
  const ptx_code::Kernel k = load("_Z16nestedHelloWorld");
  ASSERT_TRUE(k.found) << k.error;
  const int launch = ptx_code::first_line_with(k, "LaunchDevice");
  ASSERT_GE(launch, 0) << "nestedHelloWorld launches no kernel from the GPU (no device-runtime launch in its PTX). "
                          "Check of the compiled code, " CUDALAB_STUDENT_PTX;
  EXPECT_GE(ptx_code::first_line_with(k, "LastError"), 0)
      << "nestedHelloWorld never asks the device runtime for the launch's error: pass cudaGetLastError() to "
         "record_launch() right after the launch (a launch from the GPU can fail, e.g. "
         "cudaErrorLaunchPendingCountExceeded). Check of the compiled code, " CUDALAB_STUDENT_PTX;
}

TEST_F(NestedCode, NosyncLaunchesItsChildAfterABlockBarrier) {
  const ptx_code::Kernel k = load("_Z24gpuRecursiveReduceNosync");
  ASSERT_TRUE(k.found) << k.error;
  int launch = ptx_code::first_line_with(k, "GetParameterBuffer");
  if (launch < 0) launch = ptx_code::first_line_with(k, "LaunchDevice");
  ASSERT_GE(launch, 0) << "gpuRecursiveReduceNosync launches no child grid from the GPU (no device-runtime launch "
                          "in its PTX): the lab's recursion is one 1-block child per block per level. Check of the "
                          "compiled code, " CUDALAB_STUDENT_PTX;
  int barrier = -1;
  for (std::size_t i = 0; i < k.opcodes.size() && barrier < 0; ++i) {
    const std::string &op = k.opcodes[i];
    if (op.rfind("bar.sync", 0) == 0 || op.rfind("barrier.sync", 0) == 0 || op.rfind("bar.red", 0) == 0 ||
        op.rfind("barrier.red", 0) == 0)
      barrier = static_cast<int>(i);
  }
  std::printf(
      "[ CODE     ] gpuRecursiveReduceNosync (PTX): first block barrier at instruction %d, child launch at "
      "%d\n",
      barrier, launch);
  EXPECT_TRUE(barrier >= 0 && barrier < launch)
      << "gpuRecursiveReduceNosync has no __syncthreads() before its child launch: under CDP2 the child sees only "
         "the writes of the thread that launched it, not the other threads' additions (the race does not show in "
         "the sums: the launch takes microseconds). Check of the compiled code, " CUDALAB_STUDENT_PTX;
}

TEST_F(NestedCode, Reduce2TailLaunchesTheNextLevel) {
  const ptx_code::Kernel k = load("_Z19gpuRecursiveReduce2");
  ASSERT_TRUE(k.found) << k.error;
  const std::vector<long long> streams = launch_streams(k);
  ASSERT_FALSE(streams.empty()) << "gpuRecursiveReduce2 launches no kernel from the GPU (no device-runtime launch in "
                                   "its PTX): one tree level per launch, the next level launched by block 0. Check "
                                   "of the compiled code, " CUDALAB_STUDENT_PTX;
  for (long long stream : streams) {
    std::printf(
        "[ CODE     ] gpuRecursiveReduce2 (PTX): a device-side launch into stream %lld (3 = "
        "cudaStreamTailLaunch)\n",
        stream);
    EXPECT_EQ(stream, 3) << "gpuRecursiveReduce2 launches the next level into stream "
                         << (stream == 0   ? "0 (a plain <<<...>>>)"
                             : stream == 4 ? "cudaStreamFireAndForget"
                             : stream < 0  ? "that is not a compile-time constant"
                                           : std::to_string(stream))
                         << ", not cudaStreamTailLaunch: only a tail launch waits for every block of this level "
                            "(the plain launch's race did not show in the sums on an H100, see README.md). Check "
                            "of the compiled code, " CUDALAB_STUDENT_PTX;
  }
}

}  // namespace
