#!/usr/bin/env bash
# Gradescope autograder set-up (runs once when Gradescope builds the autograder image).
#
# Zip the repository (with tools/staff/autograder/setup.sh and run_autograder at the top of the zip, see
# docs/instructor-guide.md) and upload it as the autograder. Gradescope unpacks it in
# /autograder/source and runs this script as root on its Ubuntu image.
#
# Gradescope's standard machines have no GPU: GPU tests are then reported as skipped (0 points)
# and only host-graded tests score. Grade GPU labs on a machine with an NVIDIA GPU (a self-hosted
# runner, see tools/staff/autograder/classroom.yml, or tools/grade_submission.py on a lab machine).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq cmake ninja-build g++ python3 libgtest-dev git wget gnupg ca-certificates
if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  # The CUDA Toolkit from NVIDIA's apt repository (Ubuntu 22.04 image; adjust for others).
  wget -q https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb
  dpkg -i cuda-keyring_1.1-1_all.deb
  apt-get update -qq
  apt-get install -y -qq cuda-toolkit-12-6
fi
# CMake 3.25 or newer is needed; Ubuntu 22.04 ships 3.22.
if ! cmake --version | awk 'NR==1 { split($3, v, "."); exit !(v[1] > 3 || (v[1] == 3 && v[2] >= 25)) }'; then
  apt-get install -y -qq python3-pip && python3 -m pip install -q "cmake>=3.25"
fi
