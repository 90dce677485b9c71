/// @file apart.hpp
/// @brief The lab's host functions judged from outside: in the host test programs each call runs
/// in a process of its own, which can write nothing but its answer.
///
/// A lab's header declares host functions (models of the hardware such as ch03_05's
/// compute_occupancy, device queries such as its sm_limits_from_device). The header ends by
/// including `cudalab_apart_<header>.hpp`, which only the lab's host test program finds (it is
/// generated into that program's include path, cmake/CudaLab.cmake): there each later call
/// `f(args)` becomes `cudalab::apart::Apart<&::f>{"f"}(args)`, and f runs in the worker, a child
/// of the test program started at the first call. The worker has closed every file descriptor but
/// stdout, stderr and its channel to the test program, and a seccomp filter lets it write only
/// there (memory, locks, clocks and exit are allowed; every other system call fails with EPERM: no
/// file can be opened, no program started, no signal sent). The arguments travel to it by value,
/// the result and what the output arguments point to travel back, and the test checks them in the
/// test program, which alone writes the test's record. A crash, exit() or an exception costs the
/// calling test a clear message, and the next call starts a new worker.
///
/// What the lab's function asks of the CUDA runtime the test program answers: the host tests'
/// synthetic runtime functions are defined with in_parent(), so their state (the synthetic device
/// of the running test, the fault injection's count) stays the test program's.
///
/// Launchers (functions that write device buffers) are declared HOST_IN_PROCESS in their lab's
/// cudalab_add_lab() and called directly. The GPU test programs (CUDALAB_APART_GPU) run the same
/// way every function whose parameters can travel; there the CUDA runtime functions that a lab's
/// model or device query asks are the test program's (apart_runtime.cpp: the worker never talks to
/// the GPU), and a function given device buffers (a launcher) is still called directly, for now
/// (docs/grading.md, "Not closed"). CUDALAB_APART=0 makes every call direct, for a debugger.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace cudalab::apart {

/// @brief Bytes written in order into memory shared with the worker (bounded).
class Writer {
 public:
  Writer(unsigned char *data, std::size_t capacity) : data_(data), capacity_(capacity) {}
  /// @brief Appends @p n bytes; false (and nothing more written, ever) when they do not fit.
  bool put(const void *bytes, std::size_t n) {
    if (!ok_ || n > capacity_ - size_) return ok_ = false;
    if (n != 0) std::memcpy(data_ + size_, bytes, n);
    size_ += n;
    return true;
  }
  bool ok() const { return ok_; }
  std::size_t size() const { return size_; }

 private:
  unsigned char *data_;
  std::size_t capacity_, size_ = 0;
  bool ok_ = true;
};

/// @brief Bytes read in order from memory shared with the other process (bounds-checked: the
/// worker runs the lab's code, which can write anything there).
class Reader {
 public:
  Reader(const unsigned char *data, std::size_t size) : data_(data), size_(size) {}
  /// @brief Reads @p n bytes; false when fewer are left.
  bool get(void *bytes, std::size_t n) {
    if (!ok_ || n > size_ - at_) return ok_ = false;
    if (n != 0) std::memcpy(bytes, data_ + at_, n);
    at_ += n;
    return true;
  }
  bool ok() const { return ok_; }

 private:
  const unsigned char *data_;
  std::size_t size_, at_ = 0;
  bool ok_ = true;
};

/// @brief How a value travels between the processes. Defined for trivially copyable types and
/// std::string; a lab's test support specialises it for a struct with strings in it
/// (`tests/<lab>/apart_codecs.hpp`, included by the generated header).
template <class T, class Enable = void>
struct Codec;

template <class T>
struct Codec<T, std::enable_if_t<std::is_trivially_copyable_v<T> && !std::is_pointer_v<T>>> {
  static bool put(Writer &w, const T &v) { return w.put(&v, sizeof v); }
  static bool get(Reader &r, T &v) { return r.get(&v, sizeof v); }
};

/// A function pointer or `const void *` (a kernel that a lab's function hands back): an address,
/// the same in the worker, a copy of the test program; the test program accepts only one of the
/// lab's library (detail::call).
template <class T>
struct Codec<T, std::enable_if_t<std::is_pointer_v<T> &&
                                 (std::is_function_v<std::remove_pointer_t<T>> || std::is_same_v<T, const void *>)>> {
  static bool put(Writer &w, const T &v) { return w.put(&v, sizeof v); }
  static bool get(Reader &r, T &v) { return r.get(&v, sizeof v); }
};

template <>
struct Codec<std::string> {
  static bool put(Writer &w, const std::string &s) {
    const std::uint64_t n = s.size();
    return w.put(&n, sizeof n) && w.put(s.data(), s.size());
  }
  static bool get(Reader &r, std::string &s) {
    std::uint64_t n = 0;
    if (!r.get(&n, sizeof n) || n > (std::uint64_t{1} << 24)) return false;
    s.resize(static_cast<std::size_t>(n));
    return r.get(s.data(), s.size());
  }
};

/// @brief A Codec made of the codecs of the members @p M of @p T, in order: `template <> struct
/// cudalab::apart::Codec<DeviceReport> : cudalab::apart::Fields<DeviceReport, &DeviceReport::name,
/// ...> {};` for a struct with a string in it (list every member).
template <class T, auto... M>
struct Fields {
  static bool put(Writer &w, const T &v) { return (put_member(w, v.*M) && ...); }
  static bool get(Reader &r, T &v) { return (get_member(r, v.*M) && ...); }

 private:
  template <class U>
  static bool put_member(Writer &w, const U &u) {
    return Codec<U>::put(w, u);
  }
  template <class U>
  static bool get_member(Reader &r, U &u) {
    return Codec<U>::get(r, u);
  }
};

/// @brief Declares that parameter @p I of the lab's function @p F is an array whose length is
/// parameter count_param (specialise with count_param set; e.g. ch05_05's warp_conflict_degree),
/// or always `length` elements (specialise with length set; e.g. ch05_03's setCoefficientSets).
template <auto F, std::size_t I>
struct ArrayParam {
  static constexpr int count_param = -1;
  static constexpr std::size_t length = 0;
};

namespace detail {
/// Whether ArrayParam<F, I> gives the parameter a length (a specialisation may set only one member).
template <auto F, std::size_t I, class = void>
struct fixed_length : std::integral_constant<std::size_t, 0> {};
template <auto F, std::size_t I>
struct fixed_length<F, I, std::void_t<decltype(ArrayParam<F, I>::length)>>
    : std::integral_constant<std::size_t, ArrayParam<F, I>::length> {};
template <auto F, std::size_t I, class = void>
struct count_param : std::integral_constant<int, -1> {};
template <auto F, std::size_t I>
struct count_param<F, I, std::void_t<decltype(ArrayParam<F, I>::count_param)>>
    : std::integral_constant<int, ArrayParam<F, I>::count_param> {};
template <auto F, std::size_t I>
constexpr bool has_length() {
  return count_param<F, I>::value >= 0 || fixed_length<F, I>::value > 0;
}
}  // namespace detail

namespace detail {

template <class T>
struct always_false : std::false_type {};

/// Runs in the process that receives the call: reads the arguments from @p in, calls, writes the
/// result and the outputs to @p out; false with @p why (at most 255 characters) when it could not.
using Invoker = bool (*)(Reader &in, Writer &out, char *why);

/// How one parameter travels: by value; an output the callee writes (a non-const pointer or
/// reference: its pointee travels there and back; a null pointer stays null); an array of
/// ArrayParam's length; or an address kept as it is (code: a kernel or function pointer, const
/// void *), valid in the worker because it is a copy of the test program.
enum class Kind { value, out_pointer, out_reference, array, address, device };

/// @p lab: a parameter of the lab's function, where a non-const pointer to numbers would be a
/// buffer of unknown length (not allowed); otherwise of a runtime function served by the test
/// program, where it is one output value (`int *device`).
template <auto F, std::size_t I, class P, bool lab>
constexpr Kind kind_of() {
  using NoRef = std::remove_reference_t<P>;
  if constexpr (std::is_lvalue_reference_v<P> && !std::is_const_v<NoRef>) {
    return Kind::out_reference;
  } else if constexpr (std::is_pointer_v<P>) {
    using T = std::remove_pointer_t<P>;
    if constexpr (std::is_function_v<T> || std::is_same_v<T, const void>) {
      return Kind::address;
    } else if constexpr (!std::is_const_v<T> && (std::is_class_v<T> || !lab)) {
      return Kind::out_pointer;
    } else if constexpr (std::is_const_v<T> && has_length<F, I>()) {
      return Kind::array;
#ifdef CUDALAB_APART_LAUNCHERS
    } else if constexpr (lab) {
      return Kind::device;  // a device buffer: its address, which the test program checks where it is used
#endif
    } else {
      static_assert(always_false<P>::value,
                    "a parameter that points to data of unknown length cannot travel to the process that runs the "
                    "lab's function: declare the function HOST_IN_PROCESS in its lab's cudalab_add_lab(), or its "
                    "length with cudalab::apart::ArrayParam");
      return Kind::value;
    }
  } else {
    return Kind::value;
  }
}

/// Whether parameter @p I (of type @p P) of the lab's function @p F can travel to the worker: not a
/// pointer to data of unknown length (a device buffer, a host array without ArrayParam).
template <auto F, std::size_t I, class P>
constexpr bool travels() {
  using NoRef = std::remove_reference_t<P>;
  if constexpr (std::is_pointer_v<NoRef> && !std::is_lvalue_reference_v<P>) {
    using T = std::remove_pointer_t<NoRef>;
    if constexpr (std::is_function_v<T> || std::is_same_v<T, const void>) return true;
    if constexpr (!std::is_const_v<T>) return std::is_class_v<T>;
    return has_length<F, I>();
  }
  return true;
}

template <auto F, class... P, std::size_t... I>
constexpr bool all_travel(std::index_sequence<I...>) {
  return (travels<F, I, P>() && ...);
}

/// One parameter on the receiving side: its value read from the request, the argument passed,
/// the output written back.
template <auto F, std::size_t I, class P, bool lab, Kind K = kind_of<F, I, P, lab>()>
struct Slot;

template <auto F, std::size_t I, class P, bool lab>
struct Slot<F, I, P, lab, Kind::value> {
  std::decay_t<P> v{};
  bool get(Reader &r) { return Codec<std::decay_t<P>>::get(r, v); }
  P arg() { return v; }
  bool put_back(Writer &) { return true; }
};

template <auto F, std::size_t I, class P, bool lab>
struct Slot<F, I, P, lab, Kind::address> {
  P v{};
  bool get(Reader &r) { return r.get(&v, sizeof v); }
  P arg() { return v; }
  bool put_back(Writer &) { return true; }
};

/// A device buffer travels as its address, like code.
template <auto F, std::size_t I, class P, bool lab>
struct Slot<F, I, P, lab, Kind::device> : Slot<F, I, P, lab, Kind::address> {};

template <auto F, std::size_t I, class P, bool lab>
struct Slot<F, I, P, lab, Kind::out_pointer> {
  using T = std::remove_pointer_t<P>;
  T v{};
  unsigned char present = 0;
  bool get(Reader &r) { return r.get(&present, 1) && (!present || Codec<T>::get(r, v)); }
  P arg() { return present ? &v : nullptr; }
  bool put_back(Writer &w) { return !present || Codec<T>::put(w, v); }
};

template <auto F, std::size_t I, class P, bool lab>
struct Slot<F, I, P, lab, Kind::out_reference> {
  using T = std::remove_reference_t<P>;
  T v{};
  bool get(Reader &r) { return Codec<T>::get(r, v); }
  P arg() { return v; }
  bool put_back(Writer &w) { return Codec<T>::put(w, v); }
};

template <auto F, std::size_t I, class P, bool lab>
struct Slot<F, I, P, lab, Kind::array> {
  using T = std::remove_const_t<std::remove_pointer_t<P>>;
  std::vector<T> v;
  bool get(Reader &r) {
    std::uint64_t n = 0;
    if (!r.get(&n, sizeof n) || n > (std::uint64_t{1} << 24)) return false;
    v.resize(static_cast<std::size_t>(n));
    return r.get(v.data(), v.size() * sizeof(T));
  }
  P arg() { return v.data(); }
  bool put_back(Writer &) { return true; }
};

/// One parameter on the calling side: the request written from the argument, the output read
/// back into what it points to.
template <auto F, std::size_t I, class P, bool lab, class Args>
bool put_arg(Writer &w, const Args &args) {
  using T = std::remove_reference_t<P>;
  auto &&a = std::get<I>(args);
  constexpr Kind k = kind_of<F, I, P, lab>();
  if constexpr (k == Kind::value) {
    return Codec<std::decay_t<P>>::put(w, a);
  } else if constexpr (k == Kind::address || k == Kind::device) {
    const P v = a;
    return w.put(&v, sizeof v);
  } else if constexpr (k == Kind::out_pointer) {
    const unsigned char present = a != nullptr;
    return w.put(&present, 1) && (!present || Codec<std::remove_pointer_t<P>>::put(w, *a));
  } else if constexpr (k == Kind::out_reference) {
    return Codec<T>::put(w, a);
  } else {
    using E = std::remove_const_t<std::remove_pointer_t<P>>;
    std::uint64_t n = fixed_length<F, I>::value;
    if constexpr (count_param<F, I>::value >= 0) {
      const auto count = std::get<count_param<F, I>::value>(args);
      static_assert(std::is_integral_v<std::decay_t<decltype(count)>>, "ArrayParam: the length is not an integer");
      n = count <= 0 ? 0 : static_cast<std::uint64_t>(count);
    }
    if (a == nullptr) n = 0;
    return w.put(&n, sizeof n) && w.put(a, static_cast<std::size_t>(n) * sizeof(E));
  }
}

template <auto F, std::size_t I, class P, bool lab, class Args>
bool get_back(Reader &r, const Args &args) {
  auto &&a = std::get<I>(args);
  constexpr Kind k = kind_of<F, I, P, lab>();
  if constexpr (k == Kind::out_pointer) {
    if (a == nullptr) return true;
    std::remove_pointer_t<P> v = *a;
    if (!Codec<std::remove_pointer_t<P>>::get(r, v)) return false;
    *a = std::move(v);
    return true;
  } else if constexpr (k == Kind::out_reference) {
    std::remove_reference_t<P> v = a;
    if (!Codec<std::remove_reference_t<P>>::get(r, v)) return false;
    a = std::move(v);
    return true;
  } else {
    return true;
  }
}

template <class Sig>
struct Signature;
template <class R, class... P>
struct Signature<R (*)(P...)> {
  using Result = R;
  using Params = std::tuple<P...>;
};

/// The receiving side of a call of @p F (an Invoker).
template <auto F, bool lab, std::size_t... I>
bool receive(Reader &in, Writer &out, char *why, std::index_sequence<I...>) {
  using S = Signature<decltype(F)>;
  using R = typename S::Result;
  std::tuple<Slot<F, I, std::tuple_element_t<I, typename S::Params>, lab>...> slots;
  if (!(std::get<I>(slots).get(in) && ...)) {
    std::snprintf(why, 256, "its arguments did not arrive whole");
    return false;
  }
  if constexpr (std::is_void_v<R>) {
    F(std::get<I>(slots).arg()...);
  } else {
    const R result = F(std::get<I>(slots).arg()...);
    if (!Codec<std::decay_t<R>>::put(out, result)) {
      std::snprintf(why, 256, "its result is too large to travel back");
      return false;
    }
  }
  if (!(std::get<I>(slots).put_back(out) && ...)) {
    std::snprintf(why, 256, "its outputs are too large to travel back");
    return false;
  }
  return true;
}

/// The calling side of one case of each(): its request, and its outputs read back.
template <auto F, class Params, class Tuple, std::size_t... K>
bool put_case(Writer &w, const Tuple &c, std::index_sequence<K...>) {
  return (put_arg<F, K, std::tuple_element_t<K, Params>, true>(w, c) && ...);
}
template <auto F, class Params, class Tuple, std::size_t... K>
bool get_case(Reader &r, const Tuple &c, std::index_sequence<K...>) {
  return (get_back<F, K, std::tuple_element_t<K, Params>, true>(r, c) && ...);
}

/// The receiving side of each(): a count, then that many calls.
template <auto F>
bool invoke_each(Reader &in, Writer &out, char *why) {
  using S = Signature<decltype(F)>;
  std::uint64_t n = 0;
  if (!in.get(&n, sizeof n)) {
    std::snprintf(why, 256, "its arguments did not arrive whole");
    return false;
  }
  for (std::uint64_t i = 0; i < n; ++i)
    if (!receive<F, true>(in, out, why, std::make_index_sequence<std::tuple_size_v<typename S::Params>>{}))
      return false;
  return true;
}

template <auto F, bool lab>
bool invoke(Reader &in, Writer &out, char *why) {
  using S = Signature<decltype(F)>;
  return receive<F, lab>(in, out, why, std::make_index_sequence<std::tuple_size_v<typename S::Params>>{});
}

/// @brief The test program's side of one call in the worker: writes the request with
/// @p put_request, runs @p invoker there (serving the worker's in_parent() calls meanwhile) and
/// reads the reply with @p get_reply. Returns "" or what went wrong.
template <class Put, class Get>
std::string run(const char *name, Invoker invoker, Put &&put_request, Get &&get_reply);

/// @brief The worker's side of in_parent(): sends the request, waits, reads the reply (ends
/// the worker when the test program does not answer).
template <class Put, class Get>
void ask_parent(Invoker invoker, Put &&put_request, Get &&get_reply);

/// Type-erased cores of run() and ask_parent() (apart.cpp).
struct Channel {
  bool (*put)(void *ctx, Writer &w);
  bool (*get)(void *ctx, Reader &r);
  void *ctx;
};
std::string run_erased(const char *name, Invoker invoker, const Channel &c);
void ask_parent_erased(Invoker invoker, const Channel &c);
/// @brief Registers @p invoker as one the test program runs when the worker asks (in_parent);
/// the test program runs no other (the worker names it, and the worker runs the lab's code).
bool allow_parent_invoker(Invoker invoker);

/// Registered while the test program starts, before any worker exists.
template <auto F>
inline const bool parent_invoker_allowed = allow_parent_invoker(&invoke<F, false>);

template <class Put, class Get>
Channel channel(Put &put_request, Get &get_reply, std::pair<Put *, Get *> &ctx) {
  ctx = {&put_request, &get_reply};
  return Channel{[](void *c, Writer &w) { return (*static_cast<std::pair<Put *, Get *> *>(c)->first)(w); },
                 [](void *c, Reader &r) { return (*static_cast<std::pair<Put *, Get *> *>(c)->second)(r); }, &ctx};
}

template <class Put, class Get>
std::string run(const char *name, Invoker invoker, Put &&put_request, Get &&get_reply) {
  std::pair<std::remove_reference_t<Put> *, std::remove_reference_t<Get> *> ctx;
  return run_erased(name, invoker, channel(put_request, get_reply, ctx));
}

template <class Put, class Get>
void ask_parent(Invoker invoker, Put &&put_request, Get &&get_reply) {
  std::pair<std::remove_reference_t<Put> *, std::remove_reference_t<Get> *> ctx;
  ask_parent_erased(invoker, channel(put_request, get_reply, ctx));
}

/// @brief Whether this process is the worker.
bool in_worker();
/// @brief The lab's function being called in the worker now (the test program's side), or null:
/// what the worker asks the test program to launch or copy to must be of the same library.
const void *calling();
/// @brief Whether @p a and @p b are addresses in the same loaded object (program or library).
bool same_object(const void *a, const void *b);
/// @brief Sets calling() for the lifetime of the object.
class Calling {
 public:
  explicit Calling(const void *function);
  ~Calling();
  Calling(const Calling &) = delete;
  Calling &operator=(const Calling &) = delete;

 private:
  const void *previous_;
};
/// @brief Whether functions given device buffers (launchers) run in the worker too: in a program
/// built with CUDALAB_APART_LAUNCHERS whose driver gives kernels' parameter layouts
/// (apart_launchers.cpp).
bool launchers_apart();
/// @brief In the worker, during a call made under a LocalAnswers scope: in_parent() answers here.
bool answers_locally();
/// @brief Whether lab functions run apart (false in the worker and with CUDALAB_APART=0).
bool active();
/// @brief Reports @p why as a failure of the current test, naming @p name (GoogleTest).
void report(const char *name, const std::string &why);

/// The calling side of @p F with @p args (a tuple of references to the arguments).
template <auto F, bool lab, class Args, std::size_t... I>
auto call(const char *name, const Args &args, std::index_sequence<I...>) {
  using S = Signature<decltype(F)>;
  using R = typename S::Result;
  using Params = typename S::Params;
  std::conditional_t<std::is_void_v<R>, char, std::decay_t<R>> result{};
  const auto put = [&](Writer &w) { return (put_arg<F, I, std::tuple_element_t<I, Params>, lab>(w, args) && ...); };
  const auto get = [&](Reader &r) {
    if constexpr (!std::is_void_v<R>) {
      if (!Codec<std::decay_t<R>>::get(r, result)) return false;
    }
    return (get_back<F, I, std::tuple_element_t<I, Params>, lab>(r, args) && ...);
  };
  if constexpr (lab) {
    const Calling scope(reinterpret_cast<const void *>(F));
    if (const std::string why = run(name, &invoke<F, true>, put, get); !why.empty()) {
      report(name, why);
      result = {};
    }
    // An address handed back (a kernel to launch) must be the lab's own code, not the test
    // program's (its baseline or reference kernels, which would then be graded in its place).
    if constexpr (std::is_pointer_v<std::decay_t<R>>) {
      if (result != nullptr &&
          !same_object(reinterpret_cast<const void *>(result), reinterpret_cast<const void *>(F))) {
        report(name, "it returned the address of code that is not of the lab's library");
        result = {};
      }
    }
  } else {
    (void)parent_invoker_allowed<F>;
    ask_parent(&invoke<F, false>, put, get);  // ends the worker if the test program does not answer
  }
  if constexpr (!std::is_void_v<R>) return R(result);
}

}  // namespace detail

/// @brief The lab's function @p F called once per element of @p cases (each a std::tuple of its
/// arguments; an output pointer points at the caller's object, which gets the result) in one
/// visit to the worker: for a test that sweeps thousands of cases. Returns the results in order
/// (a value-initialised one each, after a failure reported for the test). Elsewhere than in a
/// host test program (or with CUDALAB_APART=0) a direct call each.
template <auto F, class... T>
auto each(const char *name, const std::vector<std::tuple<T...>> &cases) {
  using S = detail::Signature<decltype(F)>;
  using R = typename S::Result;
  using Params = typename S::Params;
  static_assert(sizeof...(T) == std::tuple_size_v<Params>, "cudalab::apart::each: another number of arguments");
  static_assert(!std::is_void_v<R>, "cudalab::apart::each: a function that returns a value");
  std::vector<std::decay_t<R>> results(cases.size());
  if (!detail::active()) {
    for (std::size_t i = 0; i < cases.size(); ++i) results[i] = std::apply(F, cases[i]);
    return results;
  }
  constexpr auto I = std::make_index_sequence<sizeof...(T)>{};
  const auto put = [&](Writer &w) {
    const std::uint64_t n = cases.size();
    if (!w.put(&n, sizeof n)) return false;
    for (const auto &c : cases)
      if (!detail::put_case<F, Params>(w, c, I)) return false;
    return true;
  };
  const auto get = [&](Reader &r) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (!Codec<std::decay_t<R>>::get(r, results[i])) return false;
      if (!detail::get_case<F, Params>(r, cases[i], I)) return false;
    }
    return true;
  };
  if (const std::string why = detail::run(name, &detail::invoke_each<F>, put, get); !why.empty()) {
    detail::report(name, why);
    std::fill(results.begin(), results.end(), std::decay_t<R>{});
  }
  return results;
}

/// @brief What a lab's host function `f` stands for in its host test program (`#define f(...)
/// cudalab::apart::Apart<&::f>{"f"}(__VA_ARGS__)`, cudalab_apart_<header>.hpp): a callable with
/// f's own parameter types, so that a call converts its arguments (braced lists included) as a
/// call of f would, and runs f in the worker.
template <auto F>
struct Apart;

template <class R, class... P, R (*F)(P...)>
struct Apart<F> {
  const char *name;  ///< the function's name, for messages
  /// @brief F(args...) in the worker; on a crash, exit, exception or a result that cannot travel
  /// back, the current test fails with the reason and a value-initialised result is returned.
  R operator()(P... args) const {
#ifdef CUDALAB_APART_GPU
    // In a GPU test program a function given device buffers (a launcher) runs in the test program,
    // unless its launches and copies are carried out there for the worker (CUDALAB_APART_LAUNCHERS,
    // apart_launchers.cpp; docs/grading.md, "Not closed").
    if constexpr (!detail::all_travel<F, P...>(std::index_sequence_for<P...>{})) {
#ifdef CUDALAB_APART_LAUNCHERS
      if (detail::active() && detail::launchers_apart()) {
        const auto refs = std::forward_as_tuple(args...);
        return detail::call<F, true>(name, refs, std::index_sequence_for<P...>{});
      }
#endif
      return F(std::forward<P>(args)...);
    } else
#endif
    {
      if (!detail::active()) return F(std::forward<P>(args)...);
      const auto refs = std::forward_as_tuple(args...);
      return detail::call<F, true>(name, refs, std::index_sequence_for<P...>{});
    }
  }
};

/// @brief For a function @p F of the test program that the lab's code calls (a synthetic CUDA
/// runtime function): called in the worker, it runs in the test program, on the test program's
/// state, and its outputs (non-const pointers: one value each) travel back. Elsewhere a direct
/// call. Define the runtime function as `cudaError_t cudaGetDevice(int *d) { return
/// cudalab::apart::in_parent<&synthetic_get_device>(d); }`.
template <auto F, class... A>
auto in_parent(A &&...args) {
  if (!detail::in_worker() || detail::answers_locally()) return F(std::forward<A>(args)...);
  const auto refs = std::forward_as_tuple(args...);
  using Params = typename detail::Signature<decltype(F)>::Params;
  return detail::call<F, false>("", refs, std::make_index_sequence<std::tuple_size_v<Params>>{});
}

/// @brief While alive (in the test program), each call of a lab function sends the bytes of
/// the objects given to the worker first, and the test program's runtime functions (in_parent)
/// answer there, from that copy, without a round trip each: for a test that sweeps millions of
/// cases. What those functions change (counts, attributes asked for) then stays in the worker, so
/// a test under this scope checks the lab's results only. The objects must be of static storage
/// (a copy of the test program, the worker has them at the same addresses) and trivially copyable.
class LocalAnswers {
 public:
  /// @brief One object: its address and size.
  struct Object {
    void *address;
    std::size_t bytes;
  };
  explicit LocalAnswers(std::initializer_list<Object> objects);
  ~LocalAnswers();
  LocalAnswers(const LocalAnswers &) = delete;
  LocalAnswers &operator=(const LocalAnswers &) = delete;
};

}  // namespace cudalab::apart
