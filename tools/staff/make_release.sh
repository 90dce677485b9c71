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
cd "$(dirname "$0")/../.."
reference=1
if [[ "${1:-}" == "--no-reference" ]]; then
  reference=0
  shift
fi
dest=${1:?usage: tools/staff/make_release.sh [--no-reference] DEST_DIR|release.zip|release.tar.gz}
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
  if [[ -n "$(cd "$full/build" && ninja -t targets all | grep '^cudalab_reference_release:')" ]]; then
    cmake --build "$full/build" --target cudalab_reference_release
    mkdir -p "$stage/cuda-labs/reference"
    cp -R "$full/build/reference-release/." "$stage/cuda-labs/reference/"
    echo "make_release: reference kernels for $(ls "$stage/cuda-labs/reference" | wc -l) labs ($(grep -m1 -o 'CUDALAB_REFERENCE_RELEASE_ARCHITECTURES:STRING=.*' "$full/build/CMakeCache.txt" | cut -d= -f2))"
  fi
fi
case "$dest" in
  *.zip) dest_abs=$(realpath -m "$dest"); (cd "$stage" && rm -f "$dest_abs" && zip -qr "$dest_abs" cuda-labs) ;;
  *.tar.gz|*.tgz) tar -czf "$dest" -C "$stage" cuda-labs ;;
  *) mkdir -p "$dest" && cp -R "$stage/cuda-labs/." "$dest/" ;;
esac
echo "make_release: wrote $dest"
