#!/usr/bin/env python3
"""Check this machine before the first build: what is missing for the labs, and how to fix it.

    python3 tools/doctor.py

Checks the platform (Linux, WSL 2; native Windows is not supported), the NVIDIA driver and the
CUDA version it supports, the CUDA Toolkit (nvcc) against the driver and the GPU's compute
capability, the host compiler against what this nvcc accepts, CMake, Ninja, the GPUs CUDA can
see (CUDA_VISIBLE_DEVICES), the profiler tools, access to the performance counters, free GPU
memory and a GPU that drives a display. Every line starts with OK, PROBLEM or NOTE; a PROBLEM or
a NOTE says what to do. The exit status is 0 when nothing is a PROBLEM, 1 otherwise. Standard
library only: it runs before anything is built (Python 3.8+).

Each check is a function of what it reads (a command's output, a file's text, the environment),
so tools/test_doctor.py tests every detection with recorded outputs on a machine without a GPU;
main() gathers those inputs from this machine.

Where the version facts come from (NVIDIA's and Microsoft's documentation):

- the driver a toolkit needs: CUDA 13.x needs driver 580 or newer, CUDA 12.x 525 or newer
  (CUDA Compatibility, "Minor Version Compatibility", Table 1, which refers to the release notes'
  table "CUDA Toolkit and Corresponding Driver Versions"); a toolkit of a newer major version than
  the driver supports gives "CUDA driver version is insufficient for CUDA runtime version".
  A newer minor version runs under minor version compatibility, except PTX compiled by the newer
  toolkit, which the older driver cannot JIT-compile ("the provided PTX was compiled with an
  unsupported toolchain").
- the toolkit a GPU needs: Blackwell (sm_100, sm_120: RTX 50) needs CUDA 12.8 (Blackwell
  Compatibility Guide); Ada (sm_89) and Hopper (sm_90) 11.8 (Ada Compatibility Guide), below the
  labs' own minimum of 12.0. CUDA 13 dropped Maxwell, Pascal and Volta: its oldest target is sm_75
  (`nvcc --list-gpu-code` of 13.0; the 13.0 release notes, "Deprecated Architectures"). When nvcc
  can list its targets (`nvcc --list-gpu-code`), that list decides.
- the host compilers nvcc accepts: read from the toolkit's own include/crt/host_config.h, the
  check nvcc itself makes ("unsupported GNU version! gcc versions later than N are not
  supported!"); the ranges per release are in the Installation Guide for Linux.
- CMake: the version CMakePresets.json asks for (cmakeMinimumRequired, 3.25).
- Windows' display watchdog (TDR) stops a GPU job after 2 seconds by default (Microsoft, "TDR
  registry keys"); it applies to the GPUs WSL 2 uses.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent

OK, PROBLEM, NOTE = "OK", "PROBLEM", "NOTE"

Version = Tuple[int, ...]

# The labs' own requirements (README, Prerequisites).
LABS_MIN_CUDA: Version = (12, 0)
LABS_MIN_CC: Version = (7, 5)
LABS_MIN_GCC = 11
LABS_MIN_CLANG = 14
PYTHON_MIN: Version = (3, 8)
CMAKE_MIN_DEFAULT: Version = (3, 25)
LOW_FREE_MIB = 4096

# The oldest driver branch each CUDA major version runs on (CUDA Compatibility, Table 1).
MIN_DRIVER_BRANCH: Dict[int, int] = {12: 525, 13: 580}

# Compute capabilities that need a toolkit newer than the labs' minimum (Blackwell Compatibility
# Guide: CUDA 12.8 is the first to build for Blackwell). Older ones (sm_75 ... sm_90) build with
# 12.0. Used only when nvcc cannot list its targets.
NEWER_ARCH_MIN_CUDA: Dict[Version, Version] = {(10, 0): (12, 8), (12, 0): (12, 8)}

GENERATIONS = {7: "Turing", 8: "Ampere", 9: "Hopper", 10: "Blackwell", 12: "Blackwell"}

URL_DRIVERS = "https://www.nvidia.com/Download/index.aspx"
URL_TOOLKIT = "https://developer.nvidia.com/cuda-downloads"
URL_INSTALL_LINUX = "https://docs.nvidia.com/cuda/cuda-installation-guide-linux/"
URL_DRIVER_TABLE = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/"
URL_COMPAT = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"
URL_WSL = "https://docs.nvidia.com/cuda/wsl-user-guide/"
URL_COUNTERS = "https://developer.nvidia.com/ERR_NVGPUCTRPERM"
URL_KITWARE_APT = "https://apt.kitware.com/"
URL_TDR = "https://learn.microsoft.com/windows-hardware/drivers/display/tdr-registry-keys"

# Packages that put a Linux NVIDIA driver into a Debian/Ubuntu system (wrong inside WSL 2).
WSL_DRIVER_PACKAGE = re.compile(r"^(nvidia-driver-\d|cuda-drivers|nvidia-dkms-|nvidia-open|nvidia-kernel-source-)")


@dataclass
class Finding:
    """One line of the report: OK, PROBLEM or NOTE, the topic, what was found and what to do."""

    status: str
    topic: str
    text: str
    fix: str = ""


# --------------------------------------------------------------------------------------------
# Parsers: text in, values out.


def version_tuple(text: str, parts: int = 2) -> Optional[Version]:
    """The first dotted version number in `text` as a tuple of `parts` ints (missing parts 0)."""
    m = re.search(r"(\d+)((?:\.\d+)*)", text or "")
    if not m:
        return None
    numbers = [int(m.group(1))] + [int(x) for x in m.group(2).split(".")[1:]]
    numbers = (numbers + [0] * parts)[:parts]
    return tuple(numbers)


def vstr(v: Optional[Sequence[int]]) -> str:
    """A version tuple as text: (12, 8) -> '12.8'."""
    return ".".join(str(x) for x in v) if v else "?"


def parse_smi_header(text: str) -> Tuple[Optional[str], Optional[Version]]:
    """The driver version and the highest CUDA version it supports, from plain `nvidia-smi`."""
    driver = re.search(r"Driver Version:\s*([\d.]+)", text or "")
    cuda = re.search(r"CUDA Version:\s*(\d+)\.(\d+)", text or "")
    return (driver.group(1) if driver else None,
            (int(cuda.group(1)), int(cuda.group(2))) if cuda else None)


def driver_branch(driver_version: Optional[str]) -> Optional[int]:
    """The driver's branch, the number before the first dot: '535.183.01' -> 535."""
    m = re.match(r"(\d+)", driver_version or "")
    return int(m.group(1)) if m else None


def parse_gpu_list(text: str) -> List[Tuple[int, str, str]]:
    """(index, name, UUID) of each GPU line of `nvidia-smi -L`."""
    gpus = []
    for line in (text or "").splitlines():
        m = re.match(r"\s*GPU (\d+): (.*?) \(UUID: (GPU-[0-9a-fA-F-]+)\)", line)
        if m:
            gpus.append((int(m.group(1)), m.group(2).strip(), m.group(3)))
    return gpus


GPU_QUERY_FIELDS = ["index", "compute_cap", "memory.total", "memory.free", "display_active", "name"]


def parse_gpu_query(text: str, fields: Sequence[str] = GPU_QUERY_FIELDS) -> List[Dict[str, str]]:
    """Rows of `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits` as dicts.

    The name comes last so that a comma in it cannot shift the other fields."""
    rows = []
    for line in (text or "").splitlines():
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(",", len(fields) - 1)]
        if len(cells) == len(fields):
            rows.append(dict(zip(fields, cells)))
    return rows


def parse_nvcc_version(text: str) -> Optional[Version]:
    """The toolkit version from `nvcc --version` ('... release 13.0, V13.0.88')."""
    m = re.search(r"release (\d+)\.(\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def parse_gpu_codes(text: str) -> Optional[List[int]]:
    """The sm_XX targets of `nvcc --list-gpu-code` as ints (sm_90a and the like left out)."""
    codes = sorted({int(x) for x in re.findall(r"\bsm_(\d+)\b", text or "")})
    return codes or None


def parse_host_config(text: str) -> Dict[str, int]:
    """The newest gcc and clang major versions this nvcc accepts, from its crt/host_config.h."""
    limits = {}
    gcc = re.search(r"gcc versions later than (\d+) are not supported", text or "")
    if gcc:
        limits["gcc"] = int(gcc.group(1))
    clang = re.search(r"unsupported clang version! clang version must be less than (\d+)", text or "")
    if clang:
        limits["clang"] = int(clang.group(1)) - 1
    return limits


def parse_compiler_version(text: str) -> Tuple[Optional[str], Optional[Version]]:
    """('gcc' or 'clang', (major, minor)) from the first line of `<compiler> --version`."""
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    if "clang" in first.lower():
        m = re.search(r"clang version (\d+)\.(\d+)", first)
        return "clang", ((int(m.group(1)), int(m.group(2))) if m else None)
    if re.search(r"(g\+\+|gcc|c\+\+|GCC)", first):
        numbers = re.findall(r"(\d+)\.(\d+)(?:\.\d+)?", first)
        return "gcc", ((int(numbers[-1][0]), int(numbers[-1][1])) if numbers else None)
    return None, None


def parse_profiling_params(text: str) -> Optional[int]:
    """RmProfilingAdminOnly from /proc/driver/nvidia/params (1: counters for admins only)."""
    m = re.search(r"RmProfilingAdminOnly:\s*(\d+)", text or "")
    return int(m.group(1)) if m else None


def parse_cmake_cache(text: str, key: str) -> Optional[str]:
    """The value of one entry (KEY:TYPE=value) of a CMakeCache.txt, None if absent or empty."""
    m = re.search(r"^" + re.escape(key) + r":[A-Z]+=(.*)$", text or "", re.MULTILINE)
    return m.group(1).strip() or None if m else None


def presets_cmake_minimum(text: str) -> Version:
    """The CMake version CMakePresets.json asks for (cmakeMinimumRequired), 3.25 if unreadable."""
    try:
        req = json.loads(text)["cmakeMinimumRequired"]
        return (int(req.get("major", 0)), int(req.get("minor", 0)))
    except (ValueError, KeyError, TypeError, AttributeError):
        return CMAKE_MIN_DEFAULT


def presets_use_ninja(text: str) -> bool:
    """True when a configure preset of CMakePresets.json names a Ninja generator."""
    return re.search(r'"generator"\s*:\s*"Ninja', text or "") is not None


def is_wsl(proc_version: Optional[str]) -> bool:
    """True inside the Windows Subsystem for Linux (either version)."""
    return "microsoft" in (proc_version or "").lower()


def is_wsl1(proc_version: Optional[str]) -> bool:
    """True in WSL 1, which has no GPU (WSL 2 kernels are '...-microsoft-standard-WSL2')."""
    low = (proc_version or "").lower()
    return is_wsl(proc_version) and "wsl2" not in low and "microsoft-standard" not in low


def cc_tuple(text: str) -> Optional[Version]:
    """A compute capability '8.9' as (8, 9); None for '[N/A]' and the like."""
    m = re.fullmatch(r"\s*(\d+)\.(\d+)\s*", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def sm(cc: Version) -> int:
    """(8, 9) -> 89, (12, 0) -> 120."""
    return cc[0] * 10 + cc[1]


def gpu_label(cc: Optional[Version], name: str) -> str:
    """'NVIDIA GeForce RTX 4060 (sm_89, Ada)' for messages."""
    if not cc:
        return name
    gen = "Ada" if cc == (8, 9) else GENERATIONS.get(cc[0], "")
    return f"{name} (sm_{sm(cc)}{', ' + gen if gen else ''})"


# --------------------------------------------------------------------------------------------
# Checks: inputs in, findings out. None of them runs a command or reads a file.


def check_platform(platform: str, proc_version: Optional[str]) -> Finding:
    """Linux and WSL 2 are supported; native Windows, WSL 1 and macOS are not."""
    if platform.startswith(("win", "cygwin", "msys")):
        return Finding(PROBLEM, "platform", "native Windows is not supported: the test programs need "
                       "the GNU linker (--wrap) and dlsym, which the Visual Studio toolchain lacks",
                       "use WSL 2 (Windows 10 21H2+ or 11): in PowerShell `wsl --install -d Ubuntu`, "
                       "install the NVIDIA driver on Windows only, then run this check inside WSL; "
                       f"see the README and {URL_WSL}")
    if platform == "darwin":
        return Finding(PROBLEM, "platform", "macOS has no CUDA support",
                       "use a Linux machine with an NVIDIA GPU, WSL 2 on a Windows PC with one, or "
                       "Google Colab (see docs/student-guide.md)")
    if is_wsl1(proc_version):
        return Finding(PROBLEM, "platform", "WSL 1: it has no access to the GPU",
                       "convert the distribution to WSL 2, in PowerShell: `wsl --set-version <distro> 2` "
                       f"(`wsl -l -v` lists them); see {URL_WSL}")
    if is_wsl(proc_version):
        return Finding(NOTE, "platform", "WSL 2: the NVIDIA driver is the Windows one",
                       "install or update the driver on Windows only, never a Linux driver inside WSL; "
                       "install the toolkit from NVIDIA's WSL-Ubuntu packages (Linux > x86_64 > WSL-Ubuntu "
                       f"at {URL_TOOLKIT}), or the cuda-toolkit-XX-Y package, not `cuda` or "
                       f"`cuda-drivers`, which bring a Linux driver; see {URL_WSL}")
    return Finding(OK, "platform", "Linux")


def check_python(version: Sequence[int]) -> Finding:
    """The score table needs Python 3.8+ (this script runs on it too)."""
    v = tuple(version[:2])
    if v < PYTHON_MIN:
        return Finding(PROBLEM, "python", f"Python {vstr(v)} is older than {vstr(PYTHON_MIN)}",
                       "install Python 3.8 or newer (`sudo apt install python3`)")
    return Finding(OK, "python", f"Python {vstr(tuple(version[:3]))}")


def check_wsl_driver_packages(wsl: bool, packages: Optional[Iterable[str]]) -> Optional[Finding]:
    """Inside WSL 2, a Linux NVIDIA driver package hides the Windows driver's libraries."""
    if not wsl or packages is None:
        return None
    bad = sorted(p for p in packages if WSL_DRIVER_PACKAGE.match(p))
    if not bad:
        return None
    return Finding(PROBLEM, "driver", "a Linux NVIDIA driver is installed inside WSL: " + ", ".join(bad),
                   f"remove it (`sudo apt remove --purge {' '.join(bad)}`), then `wsl --shutdown` in "
                   f"PowerShell and reopen; WSL uses the Windows driver ({URL_WSL})")


def nvidia_gpu_on_pci(devices: str = "/sys/bus/pci/devices") -> Optional[bool]:
    """Whether the PCI bus holds an NVIDIA display or 3D controller (vendor 0x10de, class 0x03xxxx),
    driver or not; None where the bus cannot be read (WSL, containers, other systems)."""
    try:
        found = False
        entries = os.listdir(devices)
        for d in entries:
            try:
                vendor = Path(devices, d, "vendor").read_text().strip().lower()
                klass = Path(devices, d, "class").read_text().strip().lower()
            except OSError:
                continue
            found = found or (vendor == "0x10de" and klass.startswith("0x03"))
        return found if entries else None
    except OSError:
        return None


def check_driver(smi_path: Optional[str], smi_rc: Optional[int], smi_output: str, wsl: bool,
                 nvidia_pci: Optional[bool] = None) -> Finding:
    """nvidia-smi is there and works: the driver is installed and loaded. Without it, a machine
    whose PCI bus shows no NVIDIA GPU gets a NOTE (nothing to fix here: what works, and where a GPU
    is), one with an NVIDIA GPU, or where the bus cannot be read, a PROBLEM (install the driver)."""
    if not smi_path:
        if nvidia_pci is False and not wsl:
            return Finding(NOTE, "driver", "no NVIDIA GPU on this machine (none on its PCI bus, and no driver): "
                           "everything builds and the host tests grade the models and the compiled code, but "
                           "every GPU test is skipped (0 points)",
                           "to grade the GPU tests, build and run on a machine with an NVIDIA GPU (sm_75 or newer): "
                           "the course's, or a hosted notebook's GPU (docs/notebook.md)")
        where = ("install the NVIDIA driver on Windows (not inside WSL), then `wsl --shutdown` and "
                 f"reopen WSL; nvidia-smi then appears as /usr/lib/wsl/lib/nvidia-smi ({URL_DRIVERS})"
                 if wsl else
                 "install the NVIDIA driver for your GPU (Ubuntu: `sudo ubuntu-drivers install`, or "
                 f"NVIDIA's packages: {URL_INSTALL_LINUX}) and reboot; a machine without an NVIDIA GPU can "
                 "grade the host tests only (docs/notebook.md: a hosted GPU)")
        return Finding(PROBLEM, "driver", "nvidia-smi not found: no NVIDIA driver on "
                       "this machine; everything builds and the host tests run, but every GPU test is "
                       "skipped (0 points)", where)
    if smi_rc != 0:
        first = next((l.strip() for l in (smi_output or "").splitlines() if l.strip()), "no output")
        fix = ("update the Windows NVIDIA driver, then `wsl --shutdown` in PowerShell and reopen WSL"
               if wsl else
               "the driver is installed but not running: reboot after installing or updating it; with "
               "Secure Boot on, enrol the driver's key (MOK) when asked or use signed packages; "
               "`lsmod | grep nvidia` shows whether the module is loaded")
        return Finding(PROBLEM, "driver", f"nvidia-smi fails: {first}", fix)
    version, cuda = parse_smi_header(smi_output)
    if not version:
        return Finding(NOTE, "driver", "nvidia-smi runs but its driver version could not be read")
    return Finding(OK, "driver", f"NVIDIA driver {version}" +
                   (f", supports CUDA up to {vstr(cuda)}" if cuda else ""))


def driver_cuda_version(driver_version: Optional[str], header_cuda: Optional[Version]) -> Optional[Version]:
    """The CUDA version the driver supports: nvidia-smi's header, else from its branch."""
    if header_cuda:
        return header_cuda
    branch = driver_branch(driver_version)
    if branch is None:
        return None
    for major in sorted(MIN_DRIVER_BRANCH, reverse=True):
        if branch >= MIN_DRIVER_BRANCH[major]:
            return (major, 0)
    return None


def check_driver_vs_toolkit(driver_version: Optional[str], driver_cuda: Optional[Version],
                            nvcc: Optional[Version], wsl: bool = False) -> Optional[Finding]:
    """The driver must support the toolkit's CUDA version, at least its major version."""
    if not driver_version or not nvcc:
        return None
    branch = driver_branch(driver_version)
    need = MIN_DRIVER_BRANCH.get(nvcc[0])
    too_old = (driver_cuda is not None and nvcc[0] > driver_cuda[0]) or \
              (need is not None and branch is not None and branch < need)
    if too_old:
        older = max((m for m in MIN_DRIVER_BRANCH if branch is not None and branch >= MIN_DRIVER_BRANCH[m]),
                    default=None)
        alternative = (f", or use a CUDA {older}.x toolkit, which this driver runs" if older else "")
        return Finding(PROBLEM, "driver", f"driver {driver_version} supports CUDA "
                       f"{vstr(driver_cuda)}, older than the CUDA {vstr(nvcc)} toolkit: every GPU test is "
                       "skipped with \"CUDA driver version is insufficient for CUDA runtime version\"",
                       f"update the driver{' on Windows' if wsl else ''} to the {need or 'newest'} branch or "
                       f"newer{alternative}; NVIDIA's table \"CUDA Toolkit and Corresponding Driver "
                       f"Versions\": {URL_DRIVER_TABLE}, and {URL_COMPAT}")
    if driver_cuda is not None and nvcc[0] == driver_cuda[0] and nvcc[1] > driver_cuda[1]:
        return Finding(NOTE, "driver", f"driver {driver_version} supports CUDA {vstr(driver_cuda)}, the "
                       f"toolkit is {vstr(nvcc)}: it runs under minor version compatibility, but PTX "
                       "from this toolkit cannot be JIT-compiled by this driver (\"the provided PTX was "
                       "compiled with an unsupported toolchain\")",
                       "build for this GPU's own architecture (the presets do when they see the GPU), "
                       f"and update the driver when you can ({URL_COMPAT})")
    return Finding(OK, "driver", f"driver supports CUDA {vstr(driver_cuda)}, toolkit is {vstr(nvcc)}")


def nvcc_candidates(env: Dict[str, str], globber: Callable[[str], List[str]] = glob.glob) -> List[str]:
    """Where nvcc may be installed when it is not on PATH: $CUDACXX, $CUDA_PATH, $CUDAToolkit_ROOT,
    $CUDA_HOME, then the default locations (/usr/local/cuda, /usr/local/cuda-X.Y, /opt/cuda)."""
    out = []
    if env.get("CUDACXX"):
        out.append(env["CUDACXX"])
    for var in ("CUDA_PATH", "CUDAToolkit_ROOT", "CUDA_HOME"):
        if env.get(var):
            out.append(os.path.join(env[var], "bin", "nvcc"))
    out.append("/usr/local/cuda/bin/nvcc")
    out.extend(sorted(globber("/usr/local/cuda-*/bin/nvcc"), reverse=True))
    out.append("/opt/cuda/bin/nvcc")
    return out


def check_toolkit(on_path: Optional[str], found: Optional[str], env: Dict[str, str],
                  nvcc_output: str) -> Finding:
    """nvcc is where CMake finds it (PATH, $CUDACXX, $CUDA_PATH/bin) and is CUDA 12.0 or newer."""
    install = (f"install the CUDA Toolkit (13.x, or 12.x for a driver older than 580): {URL_TOOLKIT} "
               f"(on WSL 2 choose Linux > x86_64 > WSL-Ubuntu; details: {URL_INSTALL_LINUX})")
    if not on_path and not found:
        return Finding(PROBLEM, "toolkit", "nvcc not found (PATH, $CUDACXX, /usr/local/cuda/bin): CMake "
                       "stops with \"No CMAKE_CUDA_COMPILER could be found\"",
                       install + ", then `export PATH=/usr/local/cuda/bin:$PATH` (add it to ~/.bashrc)")
    nvcc = on_path or found
    # CMake looks for nvcc in $CUDACXX, on PATH and in $CUDA_PATH/bin (CMakeDetermineCUDACompiler).
    cmake_finds_it = bool(on_path) or found in (env.get("CUDACXX"),
                                                os.path.join(env.get("CUDA_PATH", "-"), "bin", "nvcc"))
    version = parse_nvcc_version(nvcc_output)
    if version is None:
        return Finding(PROBLEM, "toolkit", f"{nvcc} --version does not say its release",
                       "reinstall the CUDA Toolkit: " + install)
    if version < LABS_MIN_CUDA:
        return Finding(PROBLEM, "toolkit", f"CUDA {vstr(version)} ({nvcc}) is older than the labs need "
                       f"({vstr(LABS_MIN_CUDA)})", install)
    if not cmake_finds_it:
        bindir = os.path.dirname(nvcc)
        return Finding(PROBLEM, "toolkit", f"nvcc (CUDA {vstr(version)}) is at {nvcc} but not on PATH: "
                       "CMake stops with \"No CMAKE_CUDA_COMPILER could be found\"",
                       f"`export PATH={bindir}:$PATH` (add it to ~/.bashrc), or `export CUDACXX={nvcc}`")
    return Finding(OK, "toolkit", f"nvcc {vstr(version)} at {nvcc}")


def check_architectures(gpus: List[Dict[str, str]], nvcc: Optional[Version],
                        codes: Optional[List[int]]) -> List[Finding]:
    """Each GPU is sm_75 or newer and this nvcc can build for it."""
    findings = []
    seen = set()
    for gpu in gpus:
        cc = cc_tuple(gpu.get("compute_cap", ""))
        if cc is None or cc in seen:
            continue
        seen.add(cc)
        label = gpu_label(cc, gpu.get("name", "GPU"))
        if cc < LABS_MIN_CC:
            findings.append(Finding(PROBLEM, "gpu", f"{label} is older than the labs support (compute "
                                    "capability 7.5, Turing, or newer); CUDA 13 cannot build for it either",
                                    "grade on a newer GPU: the course machine, or Google Colab's T4 "
                                    "(docs/student-guide.md)"))
            continue
        if nvcc is None:
            continue
        if codes:
            if sm(cc) in codes:
                findings.append(Finding(OK, "gpu", f"nvcc {vstr(nvcc)} builds for {label}"))
                continue
            if sm(cc) > max(codes):
                need = NEWER_ARCH_MIN_CUDA.get(cc)
                findings.append(Finding(PROBLEM, "gpu", f"CUDA {vstr(nvcc)} cannot build for {label} "
                                        f"(its newest target is sm_{max(codes)}): nvcc stops with "
                                        f"\"Unsupported gpu architecture 'compute_{sm(cc)}'\"",
                                        f"install CUDA {vstr(need) if need else 'a newer toolkit'} or newer "
                                        f"({URL_TOOLKIT}); the driver must support it too"))
            else:
                findings.append(Finding(NOTE, "gpu", f"nvcc {vstr(nvcc)} does not list sm_{sm(cc)} for "
                                        f"{label}; the build falls back to code of an older architecture"))
            continue
        need = NEWER_ARCH_MIN_CUDA.get(cc)
        if need and nvcc < need:
            findings.append(Finding(PROBLEM, "gpu", f"{label} needs CUDA {vstr(need)} or newer; the toolkit "
                                    f"is {vstr(nvcc)}", f"install CUDA {vstr(need)} or newer ({URL_TOOLKIT})"))
        else:
            findings.append(Finding(OK, "gpu", f"nvcc {vstr(nvcc)} builds for {label}"))
    return findings


def check_host_compiler(compiler: Optional[str], version_output: str, limits: Dict[str, int],
                        nvcc: Optional[Version], older_gccs: Sequence[str], from_cache: bool) -> Finding:
    """The C++ compiler nvcc uses is one this nvcc accepts and new enough for C++17."""
    if not compiler:
        return Finding(PROBLEM, "compiler", "no C++ compiler (g++) on PATH",
                       "`sudo apt install g++` (or build-essential)")
    kind, version = parse_compiler_version(version_output)
    if kind is None or version is None:
        return Finding(NOTE, "compiler", f"could not read the version of {compiler}")
    name = f"{'g++' if kind == 'gcc' else 'clang++'} {vstr(version)} ({compiler}"
    name += ", CMAKE_CUDA_HOST_COMPILER of build/grade)" if from_cache else ")"
    oldest = LABS_MIN_GCC if kind == "gcc" else LABS_MIN_CLANG
    if version[0] < oldest:
        newer = f"g++-{LABS_MIN_GCC + 1}"
        return Finding(PROBLEM, "compiler", f"{name} is too old for the labs' C++17 (g++ {LABS_MIN_GCC}+ "
                       f"or clang {LABS_MIN_CLANG}+)", f"install a newer one (`sudo apt install {newer}`) and "
                       f"configure a fresh build with `-DCMAKE_CUDA_HOST_COMPILER={newer}`")
    newest = limits.get(kind)
    if newest is None:
        return Finding(NOTE, "compiler", f"{name}: could not read which versions nvcc accepts "
                       "(include/crt/host_config.h)", f"the supported range is in {URL_INSTALL_LINUX}")
    if version[0] > newest:
        if kind == "gcc":
            message = f"unsupported GNU version! gcc versions later than {newest} are not supported!"
        else:
            message = f"unsupported clang version! clang version must be less than {newest + 1}"
        have = next(iter(older_gccs), None)
        pick = have or f"g++-{newest}"
        install = "" if have else f"`sudo apt install g++-{newest}`, then "
        return Finding(PROBLEM, "compiler", f"{name} is newer than nvcc {vstr(nvcc)} accepts "
                       f"({kind} {newest} at most): every CUDA file fails with \"{message}\"",
                       f"{install}configure a fresh build with the older compiler: `rm -rf build/grade && "
                       f"cmake --preset grade -DCMAKE_CUDA_HOST_COMPILER={pick}` (or `export CUDAHOSTCXX={pick}` "
                       "before the first configure); a newer CUDA Toolkit accepts newer compilers")
    return Finding(OK, "compiler", f"{name}; nvcc {vstr(nvcc)} accepts {kind} up to {newest}")


def check_cmake(cmake: Optional[str], version_output: str, minimum: Version) -> Finding:
    """CMake is new enough for CMakePresets.json (`cmake --workflow` needs 3.25)."""
    fix = ("`python3 -m pip install --user cmake` and put ~/.local/bin first in PATH (where pip refuses "
           "with \"externally-managed-environment\": `pipx install cmake`), or Kitware's APT repository "
           f"({URL_KITWARE_APT}); Ubuntu 22.04's `apt install cmake` gives 3.22, too old")
    if not cmake:
        return Finding(PROBLEM, "cmake", "cmake not found", fix)
    version = version_tuple(re.sub(r"^\D*", "", version_output or ""), 3)
    if version is None:
        return Finding(PROBLEM, "cmake", f"`{cmake} --version` does not say its version", fix)
    if version[:2] < minimum:
        return Finding(PROBLEM, "cmake", f"CMake {vstr(version)} is older than {vstr(minimum)}, which the "
                       "presets need (`cmake --workflow --preset grade`)", fix)
    return Finding(OK, "cmake", f"CMake {vstr(version)}")


def check_ninja(ninja: Optional[str], version_output: str, presets_need_it: bool) -> Finding:
    """Ninja: required when a preset uses the Ninja generator, otherwise optional."""
    fix = "`sudo apt install ninja-build` or `python3 -m pip install --user ninja`"
    if not ninja:
        if presets_need_it:
            return Finding(PROBLEM, "ninja", "ninja not found; the presets use the Ninja generator", fix)
        return Finding(NOTE, "ninja", "ninja not found (optional: the presets use Make)", fix)
    return Finding(OK, "ninja", f"Ninja {(version_output or '').strip() or '(version unknown)'}")


def check_visibility(gpu_list: List[Tuple[int, str, str]], visible: Optional[str]) -> Finding:
    """nvidia-smi lists a GPU, and CUDA_VISIBLE_DEVICES does not hide every one of them."""
    if not gpu_list:
        return Finding(PROBLEM, "gpu", "nvidia-smi lists no GPU",
                       "check that the NVIDIA GPU is enabled (on a laptop with hybrid graphics: the "
                       "NVIDIA/discrete mode of the BIOS or `prime-select nvidia`), then reboot")
    names = "; ".join(f"GPU {i}: {n}" for i, n, _ in gpu_list)
    if visible is None:
        return Finding(OK, "gpu", f"{names}; the tests use GPU {gpu_list[0][0]}")
    fix = "`unset CUDA_VISIBLE_DEVICES`, or set it to a GPU index nvidia-smi -L lists (e.g. 0)"
    if not visible.strip():
        return Finding(PROBLEM, "gpu", "CUDA_VISIBLE_DEVICES is set but empty: CUDA sees no GPU and every "
                       "GPU test is skipped", fix)
    indices = {str(i) for i, _, _ in gpu_list}
    uuids = [u for _, _, u in gpu_list]
    chosen = []
    for position, token in enumerate(t.strip() for t in visible.split(",")):
        valid = token in indices or token.startswith("MIG-") or \
            (token.startswith("GPU-") and any(u.startswith(token) for u in uuids))
        if not valid:
            if position == 0:
                return Finding(PROBLEM, "gpu", f"CUDA_VISIBLE_DEVICES={visible} names no GPU of this machine "
                               f"({names}): CUDA sees none and every GPU test is skipped", fix)
            return Finding(NOTE, "gpu", f"CUDA_VISIBLE_DEVICES={visible}: '{token}' is not a GPU here, CUDA "
                           f"ignores it and what follows; the tests use {chosen[0]}", fix)
        chosen.append(token)
    return Finding(OK, "gpu", f"CUDA_VISIBLE_DEVICES={visible}: the tests use {chosen[0]} ({names})")


def check_profiler_tools(nvcc: Optional[str], exists: Callable[[str], bool],
                         which: Callable[[str], Optional[str]]) -> Optional[Finding]:
    """Nsight Compute (ncu) and compute-sanitizer, which CMake looks for next to nvcc."""
    if not nvcc:
        return None
    bindir = os.path.dirname(nvcc)
    missing = []
    for tool, extra in (("ncu", []), ("compute-sanitizer", [os.path.join(bindir, "..", "compute-sanitizer")])):
        places = [os.path.join(d, tool) for d in [bindir] + extra]
        if not which(tool) and not any(exists(p) for p in places):
            missing.append(tool)
    if not missing:
        return Finding(OK, "tools", "ncu and compute-sanitizer found")
    return Finding(NOTE, "tools", f"{' and '.join(missing)} not found: the tests that need "
                   f"{'them' if len(missing) > 1 else 'it'} are skipped (0 points)",
                   "both come with the full CUDA Toolkit (packages cuda-nsight-compute-XX-Y and "
                   "cuda-sanitizer-XX-Y, or the cuda-toolkit-XX-Y meta-package); reconfigure after installing")


def check_counters(wsl: bool, params: Optional[str], euid: Optional[int], driver_ok: bool) -> Optional[Finding]:
    """Nsight Compute's performance counters: open to every user, or to administrators only."""
    if not driver_ok:
        return None
    tests = ("the tests that read Nsight Compute's counters (README, GPUs table) cannot be measured on "
             "this machine: they are not applicable here (ERR_NVGPUCTRPERM), left out of the total")
    if wsl:
        return Finding(NOTE, "counters", "on WSL 2 counter access is a Windows setting",
                       "if the counter tests report ERR_NVGPUCTRPERM: NVIDIA Control Panel > Desktop > Enable "
                       "Developer Settings, then Developer > Manage GPU Performance Counters > \"Allow access "
                       f"to the GPU performance counters to all users\" ({URL_COUNTERS})")
    restricted = parse_profiling_params(params) if params is not None else None
    if restricted is None:
        return Finding(NOTE, "counters", "could not read RmProfilingAdminOnly from /proc/driver/nvidia/params",
                       f"if the counter tests report ERR_NVGPUCTRPERM, see {URL_COUNTERS}")
    if restricted == 0:
        return Finding(OK, "counters", "performance counters open to all users")
    if euid == 0:
        return Finding(OK, "counters", "performance counters restricted to administrators; running as root")
    return Finding(NOTE, "counters", "performance counters are restricted to administrators "
                   f"(RmProfilingAdminOnly: 1): {tests}",
                   "grade those on the course machine, or allow all users (administrator, then reboot): "
                   "`echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee "
                   "/etc/modprobe.d/nvidia-profiling.conf && sudo update-initramfs -u`; "
                   f"see {URL_COUNTERS}")


def check_memory(gpus: List[Dict[str, str]]) -> List[Finding]:
    """Free GPU memory: below 4 GiB the big-matrix tests may not fit."""
    findings = []
    for gpu in gpus:
        try:
            free, total = int(float(gpu["memory.free"])), int(float(gpu["memory.total"]))
        except (KeyError, ValueError):
            continue
        label = f"GPU {gpu.get('index', '?')} ({gpu.get('name', '')})"
        if free < LOW_FREE_MIB:
            findings.append(Finding(NOTE, "memory", f"{label}: {free} MiB free of {total} MiB, under 4 GiB: "
                                    "the timed tests of the big-matrix labs may not fit (README, GPUs table)",
                                    "close programs that use the GPU (`nvidia-smi` lists them: browsers, "
                                    "games, notebooks) before grading"))
        else:
            findings.append(Finding(OK, "memory", f"{label}: {free} MiB free of {total} MiB"))
    return findings


def check_display(gpus: List[Dict[str, str]], wsl: bool) -> List[Finding]:
    """A GPU that drives a display (or any GPU under WSL 2) stops long kernels: the watchdog."""
    if wsl:
        return [Finding(NOTE, "display", "under WSL 2, Windows' watchdog (TDR) stops any kernel that runs "
                        "longer than about 2 s: \"the launch timed out and was terminated\"",
                        "a correct solution stays far below; a kernel that hangs or crawls is what trips it "
                        f"(docs/troubleshooting.md; {URL_TDR})")]
    findings = []
    for gpu in gpus:
        if gpu.get("display_active", "").strip().lower() == "enabled":
            findings.append(Finding(NOTE, "display", f"GPU {gpu.get('index', '?')} ({gpu.get('name', '')}) "
                                    "drives a display: the display watchdog may stop a long kernel (\"the "
                                    "launch timed out and was terminated\") and the screen competes with "
                                    "the timed tests",
                                    "keep kernels short; for timing, grade with the display on another GPU "
                                    "(the integrated one) or from a text console"))
    return findings


# --------------------------------------------------------------------------------------------
# Gathering: runs the commands and reads the files the checks take.


def run(command: Sequence[str], timeout: float = 30) -> Tuple[Optional[int], str]:
    """(exit status, stdout + stderr) of a command; (None, reason) if it cannot run."""
    try:
        p = subprocess.run(list(command), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, errors="replace", timeout=timeout)
        return p.returncode, p.stdout
    except (OSError, subprocess.SubprocessError) as e:
        return None, str(e)


def read_text(path: str) -> Optional[str]:
    """A file's text, None if it cannot be read."""
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return None


def older_gccs_on_path(newest: Optional[int], path: str) -> List[str]:
    """g++-N programs on PATH with LABS_MIN_GCC <= N <= newest, newest first."""
    if newest is None:
        return []
    found = set()
    for d in path.split(os.pathsep):
        for p in glob.glob(os.path.join(d, "g++-[0-9]*")):
            m = re.fullmatch(r"g\+\+-(\d+)", os.path.basename(p))
            if m and LABS_MIN_GCC <= int(m.group(1)) <= newest and os.access(p, os.X_OK):
                found.add(int(m.group(1)))
    return [f"g++-{n}" for n in sorted(found, reverse=True)]


def host_config_text(nvcc: Optional[str]) -> str:
    """The toolkit's crt/host_config.h next to nvcc ('' if not found)."""
    if not nvcc:
        return ""
    top = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    for rel in ("include/crt/host_config.h", "targets/x86_64-linux/include/crt/host_config.h",
                "targets/sbsa-linux/include/crt/host_config.h"):
        text = read_text(os.path.join(top, rel))
        if text:
            return text
    return ""


def gather_and_check(env: Dict[str, str]) -> List[Finding]:
    """Every check against this machine, in the order they are printed."""
    findings: List[Finding] = []
    proc_version = read_text("/proc/version")
    wsl = is_wsl(proc_version)
    platform = check_platform(sys.platform, proc_version)
    findings.append(platform)
    findings.append(check_python(sys.version_info))
    if platform.status == PROBLEM:
        return findings

    # The driver.
    if wsl and shutil.which("dpkg-query"):
        _, out = run(["dpkg-query", "-W", "-f=${Status} ${Package}\n"])
        packages = [l.split()[-1] for l in out.splitlines() if l.startswith("install ok installed")]
        f = check_wsl_driver_packages(wsl, packages)
        if f:
            findings.append(f)
    smi = shutil.which("nvidia-smi") or next(
        (p for p in ["/usr/lib/wsl/lib/nvidia-smi"] if wsl and os.path.exists(p)), None)
    smi_rc, smi_out = run([smi]) if smi else (None, "")
    driver = check_driver(smi, smi_rc, smi_out, wsl, None if smi else nvidia_gpu_on_pci())
    findings.append(driver)
    driver_ok = bool(smi) and driver.status != PROBLEM
    driver_version, header_cuda = parse_smi_header(smi_out) if driver_ok else (None, None)
    gpus: List[Dict[str, str]] = []
    if driver_ok:
        _, listing = run([smi, "-L"])
        findings.append(check_visibility(parse_gpu_list(listing), env.get("CUDA_VISIBLE_DEVICES")))
        rc, out = run([smi, "--query-gpu=" + ",".join(GPU_QUERY_FIELDS), "--format=csv,noheader,nounits"])
        if rc != 0:  # a driver too old for some field: ask for the others
            fields = [f for f in GPU_QUERY_FIELDS if f != "compute_cap"]
            rc, out = run([smi, "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"])
            gpus = parse_gpu_query(out, fields) if rc == 0 else []
        else:
            gpus = parse_gpu_query(out)

    # The toolkit.
    nvcc_on_path = shutil.which("nvcc")
    nvcc_found = nvcc_on_path or next((p for p in nvcc_candidates(env) if os.path.isfile(p)), None)
    nvcc_out = run([nvcc_found, "--version"])[1] if nvcc_found else ""
    findings.append(check_toolkit(nvcc_on_path, None if nvcc_on_path else nvcc_found, env, nvcc_out))
    nvcc_version = parse_nvcc_version(nvcc_out)
    f = check_driver_vs_toolkit(driver_version, driver_cuda_version(driver_version, header_cuda), nvcc_version, wsl)
    if f:
        findings.append(f)
    codes = parse_gpu_codes(run([nvcc_found, "--list-gpu-code"])[1]) if nvcc_found else None
    findings.extend(check_architectures(gpus, nvcc_version, codes))

    # The host compiler nvcc uses: the build's CMAKE_CUDA_HOST_COMPILER, $CUDAHOSTCXX, else g++.
    cache = read_text(str(ROOT / "build" / "grade" / "CMakeCache.txt")) or ""
    cached = parse_cmake_cache(cache, "CMAKE_CUDA_HOST_COMPILER")
    host = cached or env.get("CUDAHOSTCXX") or "g++"
    host_path = shutil.which(host)
    limits = parse_host_config(host_config_text(nvcc_found))
    if nvcc_found:
        findings.append(check_host_compiler(host_path, run([host_path, "--version"])[1] if host_path else "",
                                            limits, nvcc_version,
                                            older_gccs_on_path(limits.get("gcc"), env.get("PATH", "")),
                                            bool(cached)))

    # CMake and Ninja.
    presets = read_text(str(ROOT / "CMakePresets.json")) or ""
    cmake = shutil.which("cmake")
    findings.append(check_cmake(cmake, run([cmake, "--version"])[1] if cmake else "",
                                presets_cmake_minimum(presets)))
    ninja = shutil.which("ninja")
    findings.append(check_ninja(ninja, run([ninja, "--version"])[1] if ninja else "", presets_use_ninja(presets)))

    # The profiler tools and what the GPU offers.
    f = check_profiler_tools(nvcc_found, os.path.exists, shutil.which)
    if f:
        findings.append(f)
    if driver_ok:
        f = check_counters(wsl, read_text("/proc/driver/nvidia/params"),
                           os.geteuid() if hasattr(os, "geteuid") else None, driver_ok)
        if f:
            findings.append(f)
        findings.extend(check_memory(gpus))
        findings.extend(check_display(gpus, wsl))
    else:
        findings.append(Finding(NOTE, "gpu", "not checked without a working driver: the GPU's architecture, "
                                "counter access, free memory, display"))
    return findings


def format_finding(f: Finding) -> str:
    """'PROBLEM  toolkit   text' and, indented below, 'fix: ...'."""
    line = f"{f.status:<8} {f.topic:<9} {f.text}"
    if f.fix and f.status != OK:
        line += f"\n{'':19}{'fix' if f.status == PROBLEM else 'tip'}: {f.fix}"
    return line


def summary(findings: List[Finding]) -> str:
    """The last line: how many of each, and whether the first build can start."""
    count = {s: sum(1 for f in findings if f.status == s) for s in (OK, PROBLEM, NOTE)}
    tail = ("fix each PROBLEM above, then run this again" if count[PROBLEM] else
            "ready: `cmake --workflow --preset grade`")
    return f"doctor: {count[OK]} OK, {count[PROBLEM]} PROBLEM, {count[NOTE]} NOTE -- {tail}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run every check on this machine, print one line each and a summary; 1 if a PROBLEM."""
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    findings = gather_and_check(dict(os.environ))
    for f in findings:
        print(format_finding(f))
    print(summary(findings))
    return 1 if any(f.status == PROBLEM for f in findings) else 0


if __name__ == "__main__":
    sys.exit(main())
