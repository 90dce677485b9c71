#!/usr/bin/env bash
# Make the student release: the committed tree without solutions/, the mutants and the
# instructor-only tools and notes (see .gitattributes, export-ignore).
#
#   tools/staff/make_release.sh DEST_DIR        # a directory
#   tools/staff/make_release.sh release.zip     # or an archive (.zip, .tar.gz)
#
# Only committed files are released: commit first. The release configures, builds and grades
# with `cmake --workflow --preset grade` like the full tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=${1:?usage: tools/staff/make_release.sh DEST_DIR|release.zip|release.tar.gz}
if [[ -n "$(git status --porcelain -- labs tests common cmake tools CMakeLists.txt CMakePresets.json)" ]]; then
  echo "make_release: warning: uncommitted changes are not part of the release" >&2
fi
case "$dest" in
  *.zip) git archive --format=zip --prefix=cuda-labs/ -o "$dest" HEAD ;;
  *.tar.gz|*.tgz) git archive --format=tar.gz --prefix=cuda-labs/ -o "$dest" HEAD ;;
  *) mkdir -p "$dest" && git archive --format=tar HEAD | tar -x -C "$dest" ;;
esac
echo "make_release: wrote $dest"
