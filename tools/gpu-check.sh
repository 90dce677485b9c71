#!/usr/bin/env bash
# GPU check for course staff: on a machine with an NVIDIA GPU, build BOTH variants (reference
# solutions and student skeletons), run the whole test suite for each, and print a summary:
#   * every reference test must pass (in each of --repeat N runs),
#   * every skeleton correctness test must fail (skeletons are not solutions),
#   * any test whose result is the same for skeleton and reference is listed: it cannot fail.
#
#   tools/gpu-check.sh [--repeat N] [-L <label regex>] [--no-demos] [-j N]
#
# -j N runs up to N correctness tests at once; tests that time kernels or run Nsight Compute are
# RUN_SERIAL in CTest and still run alone (default 1: everything one at a time).
#
# Logs and score tables: build/gpu-check/. Exit status 0 only if the summary says OK.
set -uo pipefail
cd "$(dirname "$0")/.."
repeat=1
demos=1
jobs=1
label_args=()
while (($#)); do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    -L) label_args=(-L "$2"); shift 2 ;;
    --no-demos) demos=0; shift ;;
    -j) jobs="$2"; shift 2 ;;
    *) echo "usage: $0 [--repeat N] [-L label] [--no-demos] [-j N]" >&2; exit 2 ;;
  esac
done
out=build/gpu-check
mkdir -p "$out"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

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
  if ! cmake --build --preset "$variant" -- -k >>"$out/build-$variant.log" 2>&1; then
    grep -E 'error|Error' "$out/build-$variant.log" | head -n 20
    build_problems+=("$variant")
  fi
done

summaries=()
for i in $(seq 1 "$repeat"); do
  echo "== reference run $i/$repeat"
  ctest --preset check -j "$jobs" "${label_args[@]}" >"$out/check-$i.log" 2>&1
  cp build/check/grade/summary.json "$out/check-$i.json"
  summaries+=("$out/check-$i.json")
  grep -E '^(ch|total|lab )' "$out/check-$i.log" | sed 's/^/   /'
done
echo "== skeleton run"
ctest --preset grade -j "$jobs" "${label_args[@]}" >"$out/grade.log" 2>&1
cp build/grade/grade/summary.json "$out/grade.json"
grep -E '^(ch|total|lab )' "$out/grade.log" | sed 's/^/   /'

echo "== performance figures (reference run 1)"
python3 -c 'import json,sys; [print("   ", m) for t in json.load(open(sys.argv[1]))["tests"] for m in t["measurements"]]' "$out/check-1.json"
echo "== demos (reference build)"
for demo in build/check/tests/*/*_demo; do
  [[ -x "$demo" && $demos == 1 ]] || continue
  echo "-- $(basename "$demo")"
  timeout 120 "$demo" >"$out/$(basename "$demo").txt" 2>&1
  sed 's/^/   /' "$out/$(basename "$demo").txt"
done

python3 tools/compare_variants.py --skeleton "$out/grade.json" "${summaries[@]}"
rc=$?
if ((${#build_problems[@]})); then
  echo "RESULT: BUILD ERRORS in: ${build_problems[*]} (see $out/build-*.log)"
  rc=1
fi
exit $rc
