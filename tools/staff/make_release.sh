#!/usr/bin/env bash
# Make the student release: the committed tree without solutions/, the mutants and the
# instructor-only tools and notes (see .gitattributes, export-ignore), plus the reference kernels
# of the labs declared with REFERENCE_KERNELS, compiled (SASS only, no source, no PTX) for
# CUDALAB_REFERENCE_RELEASE_ARCHITECTURES into reference/<lab>/ (docs/reference-kernels-design.md).
#
#   tools/staff/make_release.sh DEST_DIR        # a directory
#   tools/staff/make_release.sh release.zip     # or an archive (.zip, .tar.gz)
#   tools/staff/make_release.sh --no-reference DEST   # without reference/: every timed test grades
#                                                      # against its baseline, as before
#
# The reference images are built with CUDALAB_REFERENCE_NVCC if set (a CUDA 12.8 or 12.9 nvcc
# makes images that every driver from 525 on loads), else the nvcc CMake finds.
# Only committed files are released: commit first. The release configures, builds and grades
# with `cmake --workflow --preset grade` like the full tree.
set -euo pipefail
reference=1
if [[ "${1:-}" == "--no-reference" ]]; then
  reference=0
  shift
fi
dest=${1:?usage: tools/staff/make_release.sh [--no-reference] DEST_DIR|release.zip|release.tar.gz}
case "$dest" in /*) ;; *) dest="$PWD/$dest" ;; esac  # relative to where it was typed
cd "$(dirname "$0")/../.."
if [[ -n "$(git status --porcelain -- labs tests common cmake tools solutions CMakeLists.txt CMakePresets.json)" ]]; then
  echo "make_release: warning: uncommitted changes are not part of the release" >&2
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
git archive --format=tar --prefix=cuda-labs/ HEAD | tar -x -C "$stage"
if ((reference)); then
  # A build of the committed tree (with solutions/), for the reference images only.
  scratch=$(mktemp -d)
  trap 'rm -rf "$stage" "$scratch"' EXIT
  full="$scratch/tree"
  git clone -q --shared . "$full"  # the committed tree with solutions/ (git archive leaves them out)
  args=(-S "$full" -B "$full/build" -G Ninja -DCMAKE_BUILD_TYPE=Release)
  [[ -n "${CUDALAB_REFERENCE_NVCC:-}" ]] && args+=("-DCUDALAB_REFERENCE_NVCC=$CUDALAB_REFERENCE_NVCC")
  if ! cmake "${args[@]}" > "$full/configure.log" 2>&1; then
    cat "$full/configure.log" >&2
    echo "make_release: cannot configure a build for the reference kernels (or use --no-reference)" >&2
    exit 1
  fi
  # The labs declared with REFERENCE_KERNELS, and the files of each (its SOURCES).
  wanted=$(python3 - "$full" <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/tools")
import labinfo
from pathlib import Path
for lab in labinfo.read_labs(Path(sys.argv[1])).values():
    if "REFERENCE_KERNELS" in lab.arguments:
        print(" ".join([lab.name, *lab.sources]))
PY
)
  if [[ -n "$wanted" ]]; then
    cmake --build "$full/build" --target cudalab_reference_release
    while read -r lab files; do
      mkdir -p "$stage/cuda-labs/reference/$lab"
      for f in $files; do
        image="$full/build/reference-release/$lab/$f.fatbin"
        if [[ ! -s "$image" ]]; then
          echo "make_release: no reference image of $lab/$f: $(cat "$image.why" 2>/dev/null || echo "not built")" >&2
          echo "make_release: fix the build (CUDALAB_REFERENCE_NVCC), or use --no-reference" >&2
          exit 1
        fi
        cp "$image" "$stage/cuda-labs/reference/$lab/"
      done
    done <<< "$wanted"
    echo "make_release: reference kernels for $(wc -l <<< "$wanted") labs ($(grep -m1 -o 'CUDALAB_REFERENCE_RELEASE_ARCHITECTURES:STRING=.*' "$full/build/CMakeCache.txt" | cut -d= -f2))"
  fi
fi
case "$dest" in
  *.zip) rm -f "$dest" && (cd "$stage" && python3 -m zipfile -c "$dest" cuda-labs) ;;
  *.tar.gz|*.tgz) tar -czf "$dest" -C "$stage" cuda-labs ;;
  *) mkdir -p "$dest" && cp -R "$stage/cuda-labs/." "$dest/" ;;
esac
echo "make_release: wrote $dest"
