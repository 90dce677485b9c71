#!/usr/bin/env bash
# GPU check for course staff: on a machine with an NVIDIA GPU, build BOTH variants (reference
# solutions and student skeletons), run the whole test suite for each, and print a summary:
#   * every reference test must pass (in each of --repeat N runs),
#   * every skeleton correctness test must fail (skeletons are not solutions),
#   * any test whose result is the same for skeleton and reference is listed: it cannot fail.
#
#   tools/staff/gpu-check.sh [--repeat N] [-L <label regex>] [--no-demos] [-j N] [--min-headroom H]
#                            [--leave-free MIB]
#   tools/staff/gpu-check.sh --hang
#
# -j N runs up to N correctness tests at once (default: the test presets' 8 for the reference, 4 for
# the skeletons); tests that time
# kernels, run Nsight Compute or size their data from the free GPU memory are RUN_SERIAL in CTest
# and still run alone. After each run the 12 slowest tests and the time spent in tests that run
# alone are printed (from ctest's JUnit file, kept in build/gpu-check/).
#
# At the end, tools/calibrate.py prints every timed threshold with the reference's smallest and
# median measurement over the runs and its headroom (smallest / threshold); with --min-headroom H
# (for example 1.1) a threshold with less headroom than H makes the summary fail. The reference
# runs time every repetition (CUDALAB_TIMING_FULL=1, as tools/calibrate.py --build does), so that
# these figures never come from a timed test that stopped early, clear of its threshold.
#
# --hang measures the worst case of the hang watchdog: a copy of the repository in which every
# kernel of solutions/ starts with an endless loop is configured, built and graded with the
# check preset (build/gpu-check/hang/), and the wall-clock times are printed. Every lab must end
# with one "kernel did not finish" test (or a few, with -j) and its other GPU tests "not run".
#
# --leave-free MIB runs the tests while another process holds all but MIB mebibytes of the GPU's
# memory (a real allocation through the CUDA runtime, released when the script ends): what a
# student's GPU with a desktop, a browser and a notebook running leaves to the tests. Unlike
# CUDALAB_FREE_MEMORY_MIB, which only caps what the tests believe is free, the tests then really
# compete for that memory. The reference must keep every point; "not applicable" only where the
# whole GPU is too small.
#
# Logs and score tables: build/gpu-check/. Exit status 0 only if the summary says OK.
set -uo pipefail
cd "$(dirname "$0")/../.."
repeat=1
demos=1
jobs_args=()
label_args=()
hang=0
min_headroom=""
leave_free=""
usage="usage: $0 [--repeat N] [-L label] [--no-demos] [-j N] [--min-headroom H] [--leave-free MIB] | --hang"
while (($#)); do
  case "$1" in
    --repeat|-L|-j|--min-headroom|--leave-free) (($# >= 2)) || { echo "$1 needs a value; $usage" >&2; exit 2; } ;;&
    --repeat) repeat="$2"; shift 2 ;;
    -L) label_args=(-L "$2"); shift 2 ;;
    --no-demos) demos=0; shift ;;
    -j) jobs_args=(-j "$2"); shift 2 ;;
    --hang) hang=1; shift ;;
    --min-headroom) min_headroom="$2"; shift 2 ;;
    --leave-free)
      [[ $2 =~ ^[0-9]+$ ]] || { echo "--leave-free needs a number of MiB, not '$2'; $usage" >&2; exit 2; }
      leave_free="$2"; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
out=build/gpu-check
mkdir -p "$out"

# timings <junit.xml>: the slowest tests and the time spent in tests that run alone.
timings() {
  python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    cases = [(float(c.get("time", 0)), c.get("name", "")) for c in ET.parse(sys.argv[1]).iter("testcase")]
except (OSError, ET.ParseError) as e:
    sys.exit(f"   (no timings: {e})")
print(f"   {len(cases)} tests, {sum(t for t, _ in cases):.0f} s of test time in all; slowest:")
for t, name in sorted(cases, reverse=True)[:12]:
    print(f"   {t:7.1f} s  {name}")
PY
}

if ((hang)); then
  # A copy of the tracked files (and the working tree's edits), every kernel made endless.
  tree="$out/hang/src"
  rm -rf "$out/hang"
  mkdir -p "$tree"
  git ls-files -z --cached --others --exclude-standard | grep -zv '^build/' | xargs -0 cp --parents -t "$tree"
  python3 - "$tree" <<'PY'
import pathlib, re, sys
n = 0
for f in pathlib.Path(sys.argv[1], "solutions").rglob("*.cu"):
    text, out, i = f.read_text(), [], 0
    for m in re.finditer(r"__global__", text):
        prefix = text[text.rfind("\n", 0, m.start()) + 1:m.start()]
        if m.start() < i or "//" in prefix or "/*" in prefix or prefix.lstrip().startswith("*"):
            continue  # in a comment
        brace, semi = text.find("{", m.end()), text.find(";", m.end())
        if brace < 0 or (0 <= semi < brace):
            continue  # a declaration
        out.append(text[i:brace + 1] + "\n  for (;;) __nanosleep(1000);  // never returns (a volatile spin loop is optimised away)\n")
        i, n = brace + 1, n + 1
    f.write_text("".join(out) + text[i:])
print(f"== --hang: {n} kernels in solutions/ start with an endless loop")
PY
  start=$(date +%s)
  (cd "$tree" && cmake --preset check >"../build.log" 2>&1 && cmake --build --preset check -- -k 0 >>"../build.log" 2>&1)
  built=$(date +%s)
  (cd "$tree" && ctest --preset check "${jobs_args[@]}" >"../ctest.log" 2>&1)
  done_=$(date +%s)
  grep -E '^(ch|total|lab )' "$out/hang/ctest.log" | sed 's/^/   /'
  echo "== --hang: configure + build $((built - start)) s, tests $((done_ - built)) s, total $((done_ - start)) s"
  echo "   'kernel did not finish': $(grep -c 'kernel did not finish in' "$out/hang/ctest.log") test(s);" \
       "'not run: an earlier test': $(grep -c 'not run: an earlier test' "$out/hang/ctest.log") test(s)"
  timings "$tree/build/check/grade/junit.xml"
  exit 0
fi

# With -L, build only the labs whose names match it (much faster); otherwise every lab.
labs=""
if ((${#label_args[@]})); then
  labs=$(python3 - "${label_args[1]}" <<'PY'
import re, sys, pathlib
pattern = re.compile(sys.argv[1])
print(";".join(sorted(p.name for p in pathlib.Path("tests").glob("ch*") if pattern.search(p.name))))
PY
)
  echo "== labs: ${labs:-none match}"
fi

build_problems=()
for variant in check grade; do
  echo "== configure + build: $variant"
  if ! cmake --preset "$variant" -DCUDALAB_LABS="$labs" >"$out/build-$variant.log" 2>&1; then
    tail -n 40 "$out/build-$variant.log"
    echo "RESULT: CONFIGURE FAILED ($variant), see $out/build-$variant.log"
    exit 1
  fi
  # Keep going past a lab that does not compile: its tests show as NOT_BUILT, the rest still run.
  if ! cmake --build --preset "$variant" -- -k 0 >>"$out/build-$variant.log" 2>&1; then
    grep -E 'error|Error' "$out/build-$variant.log" | head -n 20
    build_problems+=("$variant")
  fi
done

# hold_memory <MiB>: allocates all but <MiB> of the GPU's free memory and holds it until killed;
# prints one line when it holds it (or why it cannot) to stdout.
hold_memory() {
  exec python3 -u - "$1" <<'PY'  # exec: the holder is this process, so killing it frees the memory
import ctypes, ctypes.util, glob, os, shutil, signal, sys, time
leave = int(sys.argv[1]) << 20
names = []
nvcc = shutil.which("nvcc")
for base in filter(None, [os.environ.get("CUDA_HOME"), os.path.dirname(os.path.dirname(nvcc)) if nvcc else None,
                          "/usr/local/cuda"]):
    names += sorted(glob.glob(os.path.join(base, "lib64", "libcudart.so*"))) + \
             sorted(glob.glob(os.path.join(base, "targets", "*", "lib", "libcudart.so*")))
names.append(ctypes.util.find_library("cudart") or "libcudart.so")
rt = None
for name in names:
    try:
        rt = ctypes.CDLL(name)
        break
    except OSError:
        pass
if rt is None:
    sys.exit("hold_memory: no CUDA runtime library (libcudart.so) found; set CUDA_HOME")
free, total = ctypes.c_size_t(), ctypes.c_size_t()
if rt.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total)) != 0:
    sys.exit("hold_memory: cudaMemGetInfo failed: no GPU?")
held, chunk, ptr = 0, 256 << 20, ctypes.c_void_p()
while free.value > leave:
    size = min(chunk, free.value - leave)
    if rt.cudaMalloc(ctypes.byref(ptr), ctypes.c_size_t(size)) != 0:
        if chunk <= 2 << 20:
            break
        chunk //= 2
        continue
    held += size
    rt.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total))
print(f"holding {held >> 20} MiB: {free.value >> 20} MiB of {total.value >> 20} MiB free", flush=True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
while True:
    time.sleep(3600)
PY
}
holder=""
if [[ -n $leave_free ]]; then
  hold_memory "$leave_free" >"$out/hold-memory.log" 2>&1 &
  holder=$!
  trap '[[ -n $holder ]] && kill "$holder" 2>/dev/null' EXIT
  for _ in $(seq 1 120); do
    grep -q . "$out/hold-memory.log" && break
    kill -0 "$holder" 2>/dev/null || break
    sleep 0.5
  done
  if ! grep -q '^holding' "$out/hold-memory.log"; then
    cat "$out/hold-memory.log"
    echo "RESULT: --leave-free $leave_free: could not hold the GPU's memory (above)"
    exit 1
  fi
  echo "== --leave-free $leave_free: another process is $(cat "$out/hold-memory.log")"
fi

summaries=()
for i in $(seq 1 "$repeat"); do
  echo "== reference run $i/$repeat"
  start=$(date +%s)
  CUDALAB_TIMING_FULL=1 ctest --preset check "${jobs_args[@]}" "${label_args[@]}" >"$out/check-$i.log" 2>&1
  echo "   ctest took $(($(date +%s) - start)) s"
  cp build/check/grade/summary.json "$out/check-$i.json"
  cp build/check/grade/junit.xml "$out/check-$i.junit.xml"
  summaries+=("$out/check-$i.json")
  grep -E '^(ch|total|lab )' "$out/check-$i.log" | sed 's/^/   /'
  timings "$out/check-$i.junit.xml"
done
echo "== skeleton run"
# Untouched skeletons are "not started" and run no test; here every test runs, to show it can fail.
CUDALAB_GRADE_SKELETONS=1 ctest --preset grade "${jobs_args[@]}" "${label_args[@]}" >"$out/grade.log" 2>&1
cp build/grade/grade/summary.json "$out/grade.json"
grep -E '^(ch|total|lab )' "$out/grade.log" | sed 's/^/   /'

echo "== performance figures (reference run 1)"
python3 -c 'import json,sys; [print("   ", m["text"]) for t in json.load(open(sys.argv[1]))["tests"] for m in t["measurements"] if m.get("tag") == "perf"]' "$out/check-1.json"
echo "== demos (reference build)"
for demo in build/check/tests/*/*_demo; do
  [[ -x "$demo" && $demos == 1 ]] || continue
  echo "-- $(basename "$demo")"
  timeout 120 "$demo" >"$out/$(basename "$demo").txt" 2>&1
  sed 's/^/   /' "$out/$(basename "$demo").txt"
done

python3 tools/staff/compare_variants.py --skeleton "$out/grade.json" "${summaries[@]}"
rc=$?
echo "== thresholds and the reference's headroom over $repeat run(s)"
headroom=$(python3 tools/calibrate.py --from "${summaries[@]}" ${min_headroom:+--min-headroom "$min_headroom"} 2>&1)
headroom_rc=$?
sed 's/^/   /' <<<"$headroom"
if [[ -n $min_headroom && $headroom_rc -ne 0 ]]; then
  echo "RESULT: FAILED: --min-headroom $min_headroom: a threshold has less headroom over the reference's runs," \
       "or calibrate.py could not read them (above)"
  rc=1
fi
if ((${#build_problems[@]})); then
  echo "RESULT: BUILD ERRORS in: ${build_problems[*]} (see $out/build-*.log)"
  rc=1
fi
exit $rc
