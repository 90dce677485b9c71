// cudalab::apart (cudalab/apart.hpp) on the host: a lab's host function runs in the worker, its
// result and outputs come back, what it may not do fails there (files, programs, signals, other
// system call tables), and a crash, exit() or exception is reported against the calling test,
// after which the next call starts a new worker. The "lab functions" below stand for a lab's.
#include "cudalab/apart.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Box {
  int a = 0;
  double b = 0.0;
};

int process_id() { return static_cast<int>(getpid()); }
int add(int x, int y) { return x + y; }
void fill(Box *out, int a) {
  if (out != nullptr) *out = Box{a, a * 0.5};
}
std::string greet(const std::string &name, std::string *also) {
  if (also != nullptr) *also = "also " + name;
  return "hello " + name;
}
int sum_of(const long long *values, int n) {
  long long s = 0;
  for (int i = 0; i < n; ++i) s += values[i];
  return static_cast<int>(s);
}

// What a forger would try: each returns errno (0 if it worked).
const char *kForged = "/tmp/cudalab_apart_selftest_forged";
int open_a_file() {
  const int fd = open(kForged, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  return errno;
}
int fopen_a_file() {
  std::FILE *f = std::fopen(kForged, "w");
  if (f != nullptr) {
    std::fclose(f);
    return 0;
  }
  return errno;
}
int signal_the_test_program() { return kill(getppid(), 0) == 0 ? 0 : errno; }
int start_a_program() {
  char *const argv[] = {const_cast<char *>("/bin/true"), nullptr};
  execv("/bin/true", argv);
  return errno;
}
int write_to_descriptor_7() { return write(7, "x", 1) == 1 ? 0 : errno; }
int print_something() {
  std::printf("[ selftest ] printed by the worker\n");
  return 1;
}

// The real CUDA runtime in the worker: it cannot open the driver, and says so (as on a machine
// without one) instead of crashing.
int ask_the_real_runtime() {
  int n = -1;
  return static_cast<int>(cudaGetDeviceCount(&n));
}

int crash() {
  *static_cast<volatile int *>(nullptr) = 1;
  return 1;
}
int quit() { std::exit(0); }
int throws() { throw 42; }
#if defined(__x86_64__)
int old_system_call_table() {
  long ret = 20;  // getpid in the 32-bit table
  asm volatile("int $0x80" : "+a"(ret) : : "memory");
  return static_cast<int>(ret);
}
#endif

// The test program's side: a synthetic runtime function, and a lab function that asks it.
int g_asked = 0;
int answer_in_parent(int *out, int value) {
  ++g_asked;
  *out = value * 2;
  return static_cast<int>(getpid());
}
int asks_the_test_program(int value) {
  int out = 0;
  const int pid = cudalab::apart::in_parent<&answer_in_parent>(&out, value);
  return pid == static_cast<int>(getppid()) ? out : -1;
}

template <auto F, class... A>
auto apart(A &&...args) {
  return cudalab::apart::Apart<F>{"selftest"}(std::forward<A>(args)...);
}

TEST(Apart, RunsInAnotherProcessAndReturns) {
  EXPECT_NE(apart<&process_id>(), static_cast<int>(getpid()));
  EXPECT_EQ(apart<&add>(2, 3), 5);
}

TEST(Apart, OutputsComeBack) {
  Box box;
  apart<&fill>(&box, 4);
  EXPECT_EQ(box.a, 4);
  EXPECT_EQ(box.b, 2.0);
  apart<&fill>(nullptr, 4);  // a null output stays null
  std::string also;
  EXPECT_EQ(apart<&greet>(std::string("gpu"), &also), "hello gpu");
  EXPECT_EQ(also, "also gpu");
}

TEST(Apart, WhatAForgerNeedsFails) {
  unlink(kForged);
  EXPECT_EQ(apart<&open_a_file>(), EPERM);
  EXPECT_EQ(apart<&fopen_a_file>(), EPERM);
  struct stat st;
  EXPECT_NE(stat(kForged, &st), 0) << "the worker created " << kForged;
  EXPECT_EQ(apart<&signal_the_test_program>(), EPERM);
  EXPECT_EQ(apart<&start_a_program>(), EPERM);
  EXPECT_EQ(apart<&write_to_descriptor_7>(), EPERM);
  EXPECT_EQ(apart<&print_something>(), 1);  // stdout is allowed
}

TEST(Apart, TheRealRuntimeFailsCleanlyInTheWorker) {
  EXPECT_NE(apart<&ask_the_real_runtime>(), static_cast<int>(cudaSuccess));
  EXPECT_EQ(apart<&add>(5, 5), 10);
}

TEST(Apart, CrashExitAndExceptionFailTheTestAndTheNextCallWorks) {
  EXPECT_NONFATAL_FAILURE(apart<&crash>(), "crashed (SIGSEGV");
  EXPECT_EQ(apart<&add>(1, 1), 2);
  EXPECT_NONFATAL_FAILURE(apart<&quit>(), "ended its process (exit status 0");
  EXPECT_EQ(apart<&add>(2, 2), 4);
  EXPECT_NONFATAL_FAILURE(apart<&throws>(), "threw an exception");
  EXPECT_EQ(apart<&add>(3, 3), 6);
#if defined(__x86_64__)
  EXPECT_NONFATAL_FAILURE(apart<&old_system_call_table>(), "SIGSYS");
  EXPECT_EQ(apart<&add>(4, 4), 8);
#endif
}

TEST(Apart, RuntimeQuestionsAreAnsweredByTheTestProgram) {
  g_asked = 0;
  EXPECT_EQ(apart<&asks_the_test_program>(21), 42);
  EXPECT_EQ(g_asked, 1);
  {
    const cudalab::apart::LocalAnswers local{};
    EXPECT_EQ(apart<&asks_the_test_program>(5), -1);  // answered in the worker: its parent's pid is not its own
    EXPECT_EQ(g_asked, 1);
  }
}

TEST(Apart, EachMakesManyCallsInOneVisit) {
  std::vector<std::tuple<int, int>> sums;
  for (int i = 0; i < 100; ++i) sums.emplace_back(i, 2 * i);
  const std::vector<int> got = cudalab::apart::each<&add>("add", sums);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(got[i], 3 * i);
  std::vector<std::string> also(3);
  std::vector<std::tuple<std::string, std::string *>> names;
  for (int i = 0; i < 3; ++i) names.emplace_back(std::to_string(i), &also[i]);
  const std::vector<std::string> greetings = cudalab::apart::each<&greet>("greet", names);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(greetings[i], "hello " + std::to_string(i));
    EXPECT_EQ(also[i], "also " + std::to_string(i));
  }
}

}  // namespace

template <>
struct cudalab::apart::ArrayParam<&sum_of, 0> {
  static constexpr int count_param = 1;
};

namespace {

TEST(Apart, ArraysTravelWithTheirLength) {
  const long long values[] = {1, 2, 3, 4, 5};
  EXPECT_EQ(apart<&sum_of>(values, 5), 15);
  EXPECT_EQ(apart<&sum_of>(values, 0), 0);
}

}  // namespace
