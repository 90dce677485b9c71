"""Self-test of tools/doctor.py (run by ctest as tools.doctor_selftest): every check detects its
problem from recorded command outputs and file contents, with the fix, on a machine without a GPU.

    python3 -m unittest -v test_doctor      (from tools/)
"""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import doctor
from doctor import NOTE, OK, PROBLEM

HERE = Path(__file__).resolve().parent

# nvidia-smi of a laptop whose OEM driver is of the 535 branch (CUDA 12.2).
SMI_535 = """\
Tue Jun  4 09:12:44 2024
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|=========================================+======================+======================|
|   0  NVIDIA GeForce RTX 4060 ...    Off | 00000000:01:00.0  On |                  N/A |
| N/A   46C    P8               3W /  80W |    478MiB /  8188MiB |      4%      Default |
+-----------------------------------------+----------------------+----------------------+
"""
SMI_580 = SMI_535.replace("NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2",
                          "NVIDIA-SMI 580.65.06              Driver Version: 580.65.06      CUDA Version: 13.0")
SMI_FAILED = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
              "that the latest NVIDIA driver is installed and running.\n\n")
SMI_L = ("GPU 0: NVIDIA GeForce RTX 4060 Laptop GPU (UUID: GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0)\n")
SMI_L_TWO = SMI_L + "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-0a0b0c0d-1111-2222-3333-444455556666)\n"
QUERY = "0, 8.9, 8188, 7710, Enabled, NVIDIA GeForce RTX 4060 Laptop GPU\n"

NVCC_13_0 = """\
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0
"""
NVCC_12_6 = NVCC_13_0.replace("release 13.0, V13.0.88", "release 12.6, V12.6.85")
NVCC_11_8 = NVCC_13_0.replace("release 13.0, V13.0.88", "release 11.8, V11.8.89")
CODES_13_0 = "sm_75\nsm_80\nsm_86\nsm_87\nsm_88\nsm_89\nsm_90\nsm_100\nsm_110\nsm_103\nsm_120\nsm_121\n"
CODES_12_6 = "sm_50\nsm_52\nsm_53\nsm_60\nsm_61\nsm_62\nsm_70\nsm_72\nsm_75\nsm_80\nsm_86\nsm_87\nsm_89\nsm_90\n"

WSL2_VERSION = ("Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) 12.2.0, "
                "GNU ld (GNU Binutils) 2.40) #1 SMP Fri Mar 29 23:14:13 UTC 2024\n")
WSL1_VERSION = ("Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) "
                "#1237-Microsoft Sat Sep 11 14:32:00 PST 2021\n")
LINUX_VERSION = "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0)\n"

PARAMS_RESTRICTED = "ResmanDebugLevel: 4294967295\nRmLogonRC: 1\nModifyDeviceFiles: 1\nRmProfilingAdminOnly: 1\n"
PARAMS_OPEN = PARAMS_RESTRICTED.replace("RmProfilingAdminOnly: 1", "RmProfilingAdminOnly: 0")

CMAKE_3_22 = "cmake version 3.22.1\n\nCMake suite maintained and supported by Kitware (kitware.com/cmake).\n"
CMAKE_3_28 = CMAKE_3_22.replace("3.22.1", "3.28.3")

GXX_14 = "g++ (Ubuntu 14.2.0-4ubuntu2) 14.2.0\nCopyright (C) 2024 Free Software Foundation, Inc.\n"
GXX_12 = "g++ (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc.\n"
GXX_9 = "g++ (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0\n"
CXX_12 = "c++ (Debian 12.2.0-14+deb12u1) 12.2.0\n"
CLANG_21 = "Ubuntu clang version 21.1.0 (1ubuntu1)\nTarget: x86_64-pc-linux-gnu\n"
CLANG_18 = "Ubuntu clang version 18.1.3 (1ubuntu1)\nTarget: x86_64-pc-linux-gnu\n"

# The part of a CUDA 12.x crt/host_config.h that limits the host compiler (gcc 13, clang 18).
HOST_CONFIG_12 = """\
#if defined(__GNUC__)
#if __GNUC__ > 13
#error -- unsupported GNU version! gcc versions later than 13 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk.
#endif /* __GNUC__ > 13 */
#if defined(__clang__) && !defined(__ibmxl_vrm__) && !defined(__ICC) && !defined(__HORIZON__) && !defined(__APPLE__)
#if (__clang_major__ >= 19) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))
#error -- unsupported clang version! clang version must be less than 19 and greater than 3.2 . The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk.
#endif
#endif
#endif /* __GNUC__ */
"""
HOST_CONFIG_13 = HOST_CONFIG_12.replace("later than 13", "later than 15").replace("less than 19", "less than 21")

GPU_4060 = {"index": "0", "compute_cap": "8.9", "memory.total": "8188", "memory.free": "7710",
            "display_active": "Enabled", "name": "NVIDIA GeForce RTX 4060 Laptop GPU"}
GPU_5090 = {"index": "0", "compute_cap": "12.0", "memory.total": "32607", "memory.free": "31000",
            "display_active": "Disabled", "name": "NVIDIA GeForce RTX 5090"}
GPU_V100 = {"index": "0", "compute_cap": "7.0", "memory.total": "16384", "memory.free": "16000",
            "display_active": "Disabled", "name": "Tesla V100-SXM2-16GB"}


class ParseTest(unittest.TestCase):
    def test_nvidia_smi_header(self):
        self.assertEqual(doctor.parse_smi_header(SMI_535), ("535.183.01", (12, 2)))
        self.assertEqual(doctor.parse_smi_header(SMI_580), ("580.65.06", (13, 0)))
        self.assertEqual(doctor.parse_smi_header(SMI_FAILED), (None, None))
        self.assertEqual(doctor.driver_branch("535.183.01"), 535)

    def test_the_driver_cuda_version_comes_from_the_branch_without_a_header(self):
        self.assertEqual(doctor.driver_cuda_version("580.82.07", None), (13, 0))
        self.assertEqual(doctor.driver_cuda_version("550.54.14", None), (12, 0))
        self.assertEqual(doctor.driver_cuda_version("470.256.02", None), None)
        self.assertEqual(doctor.driver_cuda_version("535.183.01", (12, 2)), (12, 2))

    def test_gpu_list_and_query(self):
        self.assertEqual(doctor.parse_gpu_list(SMI_L_TWO)[1],
                         (1, "NVIDIA H100 80GB HBM3", "GPU-0a0b0c0d-1111-2222-3333-444455556666"))
        rows = doctor.parse_gpu_query(QUERY + "1, 9.0, 81559, 80000, Disabled, Name, with a comma\n")
        self.assertEqual(rows[0]["compute_cap"], "8.9")
        self.assertEqual(rows[0]["display_active"], "Enabled")
        self.assertEqual(rows[1]["name"], "Name, with a comma")

    def test_nvcc_version_and_targets(self):
        self.assertEqual(doctor.parse_nvcc_version(NVCC_13_0), (13, 0))
        self.assertEqual(doctor.parse_nvcc_version("bash: nvcc: command not found"), None)
        self.assertEqual(doctor.parse_gpu_codes(CODES_13_0)[0], 75)
        self.assertNotIn(90, doctor.parse_gpu_codes("sm_90a sm_100a sm_89"))
        self.assertIsNone(doctor.parse_gpu_codes("nvcc fatal   : Unknown option '--list-gpu-code'"))

    def test_host_config_limits(self):
        self.assertEqual(doctor.parse_host_config(HOST_CONFIG_12), {"gcc": 13, "clang": 18})
        self.assertEqual(doctor.parse_host_config(HOST_CONFIG_13), {"gcc": 15, "clang": 20})
        self.assertEqual(doctor.parse_host_config(""), {})

    def test_the_installed_toolkit_header_if_there_is_one(self):
        text = doctor.host_config_text("/usr/local/cuda/bin/nvcc")
        if not text:
            self.skipTest("no CUDA Toolkit at /usr/local/cuda")
        self.assertIn("gcc", doctor.parse_host_config(text))

    def test_compiler_versions(self):
        self.assertEqual(doctor.parse_compiler_version(GXX_14), ("gcc", (14, 2)))
        self.assertEqual(doctor.parse_compiler_version(CXX_12), ("gcc", (12, 2)))
        self.assertEqual(doctor.parse_compiler_version(CLANG_18), ("clang", (18, 1)))
        self.assertEqual(doctor.parse_compiler_version(""), (None, None))

    def test_profiling_params_cache_and_presets(self):
        self.assertEqual(doctor.parse_profiling_params(PARAMS_RESTRICTED), 1)
        self.assertEqual(doctor.parse_profiling_params(PARAMS_OPEN), 0)
        self.assertIsNone(doctor.parse_profiling_params("RmLogonRC: 1\n"))
        cache = "CMAKE_CUDA_HOST_COMPILER:FILEPATH=/usr/bin/g++-13\nCMAKE_CXX_COMPILER:FILEPATH=\n"
        self.assertEqual(doctor.parse_cmake_cache(cache, "CMAKE_CUDA_HOST_COMPILER"), "/usr/bin/g++-13")
        self.assertIsNone(doctor.parse_cmake_cache(cache, "CMAKE_CXX_COMPILER"))
        presets = (HERE.parent / "CMakePresets.json").read_text()
        self.assertEqual(doctor.presets_cmake_minimum(presets), (3, 25))
        self.assertEqual(doctor.presets_cmake_minimum("not json"), (3, 25))
        self.assertTrue(doctor.presets_use_ninja('{"generator": "Ninja Multi-Config"}'))
        self.assertFalse(doctor.presets_use_ninja('{"binaryDir": "build"}'))

    def test_wsl_versions(self):
        self.assertTrue(doctor.is_wsl(WSL2_VERSION) and not doctor.is_wsl1(WSL2_VERSION))
        self.assertTrue(doctor.is_wsl1(WSL1_VERSION))
        self.assertFalse(doctor.is_wsl(LINUX_VERSION) or doctor.is_wsl(None))


class PlatformTest(unittest.TestCase):
    def test_native_windows_is_a_problem_with_wsl_as_the_fix(self):
        f = doctor.check_platform("win32", None)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("native Windows is not supported", f.text)
        self.assertIn("wsl --install", f.fix)

    def test_wsl1_has_no_gpu(self):
        f = doctor.check_platform("linux", WSL1_VERSION)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("wsl --set-version", f.fix)

    def test_wsl2_says_where_driver_and_toolkit_come_from(self):
        f = doctor.check_platform("linux", WSL2_VERSION)
        self.assertEqual(f.status, NOTE)
        self.assertIn("Windows", f.text)
        self.assertIn("never a Linux driver inside WSL", f.fix)
        self.assertIn("WSL-Ubuntu", f.fix)
        self.assertIn(doctor.URL_WSL, f.fix)

    def test_linux_and_macos(self):
        self.assertEqual(doctor.check_platform("linux", LINUX_VERSION).status, OK)
        self.assertEqual(doctor.check_platform("darwin", None).status, PROBLEM)

    def test_a_linux_driver_inside_wsl(self):
        f = doctor.check_wsl_driver_packages(True, ["libc6", "nvidia-driver-550", "cuda-toolkit-13-0"])
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("nvidia-driver-550", f.text)
        self.assertNotIn("cuda-toolkit", f.text)
        self.assertIn("sudo apt remove --purge nvidia-driver-550", f.fix)
        self.assertIsNone(doctor.check_wsl_driver_packages(True, ["cuda-toolkit-13-0"]))
        self.assertIsNone(doctor.check_wsl_driver_packages(False, ["nvidia-driver-550"]))

    def test_python(self):
        self.assertEqual(doctor.check_python((3, 11, 7)).status, OK)
        self.assertEqual(doctor.check_python((3, 6, 9)).status, PROBLEM)


class DriverTest(unittest.TestCase):
    def test_no_nvidia_smi(self):
        f = doctor.check_driver(None, None, "", wsl=False)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("no NVIDIA driver", f.text)
        self.assertIn("skipped", f.text)
        self.assertIn("ubuntu-drivers", f.fix)
        wsl = doctor.check_driver(None, None, "", wsl=True)
        self.assertIn("on Windows (not inside WSL)", wsl.fix)

    def test_no_nvidia_gpu_is_a_note_that_says_what_works(self):
        f = doctor.check_driver(None, None, "", wsl=False, nvidia_pci=False)
        self.assertEqual(f.status, NOTE)
        self.assertIn("no NVIDIA GPU on this machine", f.text)
        self.assertIn("host tests", f.text)
        self.assertIn("docs/notebook.md", f.fix)
        # an NVIDIA GPU on the bus without its driver: install it
        self.assertEqual(doctor.check_driver(None, None, "", wsl=False, nvidia_pci=True).status, PROBLEM)

    def test_pci_bus(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, vendor, klass in (("0000:00:02.0", "0x8086", "0x030000"), ("0000:01:00.0", "0x10de", "0x030200")):
                Path(tmp, name).mkdir()
                Path(tmp, name, "vendor").write_text(vendor + "\n")
                Path(tmp, name, "class").write_text(klass + "\n")
            self.assertTrue(doctor.nvidia_gpu_on_pci(tmp))
            Path(tmp, "0000:01:00.0", "vendor").write_text("0x1002\n")
            self.assertFalse(doctor.nvidia_gpu_on_pci(tmp))
        self.assertIsNone(doctor.nvidia_gpu_on_pci("/nonexistent"))

    def test_nvidia_smi_that_fails(self):
        f = doctor.check_driver("/usr/bin/nvidia-smi", 9, SMI_FAILED, wsl=False)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("couldn't communicate with the NVIDIA driver", f.text)
        self.assertIn("reboot", f.fix)
        self.assertIn("Secure Boot", f.fix)

    def test_a_working_driver(self):
        f = doctor.check_driver("/usr/bin/nvidia-smi", 0, SMI_535, wsl=False)
        self.assertEqual(f.status, OK)
        self.assertIn("535.183.01", f.text)
        self.assertIn("12.2", f.text)

    def test_driver_535_with_a_cuda_13_toolkit(self):
        f = doctor.check_driver_vs_toolkit("535.183.01", (12, 2), (13, 0))
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("CUDA driver version is insufficient for CUDA runtime version", f.text)
        self.assertIn("580 branch", f.fix)
        self.assertIn("CUDA 12.x toolkit", f.fix)
        self.assertIn(doctor.URL_DRIVER_TABLE, f.fix)
        self.assertIn("on Windows", doctor.check_driver_vs_toolkit("535.183.01", (12, 2), (13, 0), wsl=True).fix)

    def test_driver_470_with_a_cuda_12_toolkit(self):
        f = doctor.check_driver_vs_toolkit("470.256.02", (11, 4), (12, 4))
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("525 branch", f.fix)
        self.assertNotIn("toolkit, which this driver runs", f.fix)

    def test_a_newer_minor_version_runs_with_a_note(self):
        f = doctor.check_driver_vs_toolkit("535.183.01", (12, 2), (12, 8))
        self.assertEqual(f.status, NOTE)
        self.assertIn("minor version compatibility", f.text)
        self.assertIn("unsupported toolchain", f.text)

    def test_matching_driver_and_toolkit(self):
        self.assertEqual(doctor.check_driver_vs_toolkit("580.65.06", (13, 0), (13, 0)).status, OK)
        self.assertEqual(doctor.check_driver_vs_toolkit("580.65.06", (13, 0), (12, 6)).status, OK)
        self.assertIsNone(doctor.check_driver_vs_toolkit(None, None, (13, 0)))


class ToolkitTest(unittest.TestCase):
    def test_no_nvcc_anywhere(self):
        f = doctor.check_toolkit(None, None, {}, "")
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("No CMAKE_CUDA_COMPILER could be found", f.text)
        self.assertIn(doctor.URL_TOOLKIT, f.fix)
        self.assertIn("export PATH=/usr/local/cuda/bin:$PATH", f.fix)

    def test_nvcc_installed_but_not_on_path(self):
        f = doctor.check_toolkit(None, "/usr/local/cuda-12.6/bin/nvcc", {}, NVCC_12_6)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("not on PATH", f.text)
        self.assertIn("export PATH=/usr/local/cuda-12.6/bin:$PATH", f.fix)
        env = {"CUDACXX": "/usr/local/cuda-12.6/bin/nvcc"}
        self.assertEqual(doctor.check_toolkit(None, env["CUDACXX"], env, NVCC_12_6).status, OK)
        env = {"CUDA_PATH": "/opt/nvidia/cuda"}
        self.assertEqual(doctor.check_toolkit(None, "/opt/nvidia/cuda/bin/nvcc", env, NVCC_12_6).status, OK)

    def test_too_old_and_good_toolkits(self):
        f = doctor.check_toolkit("/usr/local/cuda/bin/nvcc", None, {}, NVCC_11_8)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("older than the labs need (12.0)", f.text)
        f = doctor.check_toolkit("/usr/local/cuda/bin/nvcc", None, {}, NVCC_13_0)
        self.assertEqual((f.status, f.text), (OK, "nvcc 13.0 at /usr/local/cuda/bin/nvcc"))

    def test_where_nvcc_is_looked_for(self):
        installed = ["/usr/local/cuda-12.4/bin/nvcc", "/usr/local/cuda-13.0/bin/nvcc"]
        found = doctor.nvcc_candidates({"CUDACXX": "/x/nvcc", "CUDA_PATH": "/y"}, lambda pattern: installed)
        self.assertEqual(found[:4], ["/x/nvcc", "/y/bin/nvcc", "/usr/local/cuda/bin/nvcc",
                                     "/usr/local/cuda-13.0/bin/nvcc"])


class ArchitectureTest(unittest.TestCase):
    def test_rtx_50_needs_cuda_12_8(self):
        f, = doctor.check_architectures([GPU_5090], (12, 6), doctor.parse_gpu_codes(CODES_12_6))
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("sm_120", f.text)
        self.assertIn("Unsupported gpu architecture 'compute_120'", f.text)
        self.assertIn("install CUDA 12.8 or newer", f.fix)
        f, = doctor.check_architectures([GPU_5090], (12, 6), None)  # an nvcc that cannot list its targets
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("12.8", f.fix)
        f, = doctor.check_architectures([GPU_5090], (13, 0), doctor.parse_gpu_codes(CODES_13_0))
        self.assertEqual(f.status, OK)

    def test_ada_with_cuda_13(self):
        f, = doctor.check_architectures([GPU_4060], (13, 0), doctor.parse_gpu_codes(CODES_13_0))
        self.assertEqual(f.status, OK)
        self.assertIn("sm_89, Ada", f.text)

    def test_gpus_older_than_turing(self):
        f, = doctor.check_architectures([GPU_V100], (13, 0), doctor.parse_gpu_codes(CODES_13_0))
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("compute capability 7.5", f.text)
        self.assertIn("CUDA 13 cannot build for it", f.text)

    def test_unknown_compute_capability_is_left_alone(self):
        self.assertEqual(doctor.check_architectures([dict(GPU_4060, compute_cap="[N/A]")], (13, 0), None), [])


class HostCompilerTest(unittest.TestCase):
    def test_gcc_14_with_an_nvcc_that_accepts_13(self):
        limits = doctor.parse_host_config(HOST_CONFIG_12)
        f = doctor.check_host_compiler("/usr/bin/g++", GXX_14, limits, (12, 6), [], from_cache=False)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("unsupported GNU version! gcc versions later than 13 are not supported!", f.text)
        self.assertIn("sudo apt install g++-13", f.fix)
        self.assertIn("-DCMAKE_CUDA_HOST_COMPILER=g++-13", f.fix)
        self.assertIn("rm -rf build/grade", f.fix)
        f = doctor.check_host_compiler("/usr/bin/g++", GXX_14, limits, (12, 6), ["g++-12"], from_cache=False)
        self.assertNotIn("apt install", f.fix)
        self.assertIn("-DCMAKE_CUDA_HOST_COMPILER=g++-12", f.fix)

    def test_a_supported_gcc(self):
        f = doctor.check_host_compiler("/usr/bin/g++", GXX_12, {"gcc": 15}, (13, 0), [], from_cache=False)
        self.assertEqual(f.status, OK)
        self.assertIn("accepts gcc up to 15", f.text)
        f = doctor.check_host_compiler("/usr/bin/g++-13", GXX_12, {"gcc": 15}, (13, 0), [], from_cache=True)
        self.assertIn("CMAKE_CUDA_HOST_COMPILER of build/grade", f.text)

    def test_clang_too_new_and_gcc_too_old(self):
        limits = doctor.parse_host_config(HOST_CONFIG_13)
        f = doctor.check_host_compiler("/usr/bin/clang++", CLANG_21, limits, (13, 0), [], from_cache=False)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("clang version must be less than 21", f.text)
        self.assertEqual(doctor.check_host_compiler("/usr/bin/clang++", CLANG_18, limits, (13, 0), [], False).status, OK)
        f = doctor.check_host_compiler("/usr/bin/g++", GXX_9, limits, (13, 0), [], from_cache=False)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("C++17", f.text)

    def test_missing_compiler_or_header(self):
        self.assertEqual(doctor.check_host_compiler(None, "", {}, (13, 0), [], False).status, PROBLEM)
        f = doctor.check_host_compiler("/usr/bin/g++", GXX_12, {}, (13, 0), [], False)
        self.assertEqual(f.status, NOTE)
        self.assertIn(doctor.URL_INSTALL_LINUX, f.fix)


class BuildToolsTest(unittest.TestCase):
    def test_cmake_3_22(self):
        f = doctor.check_cmake("/usr/bin/cmake", CMAKE_3_22, (3, 25))
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("CMake 3.22.1 is older than 3.25", f.text)
        self.assertIn("pip install --user cmake", f.fix)
        self.assertIn(doctor.URL_KITWARE_APT, f.fix)

    def test_cmake_missing_and_new_enough(self):
        self.assertEqual(doctor.check_cmake(None, "", (3, 25)).status, PROBLEM)
        self.assertEqual(doctor.check_cmake("/usr/bin/cmake", CMAKE_3_28, (3, 25)).status, OK)

    def test_ninja(self):
        f = doctor.check_ninja(None, "", presets_need_it=True)
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("sudo apt install ninja-build", f.fix)
        self.assertIn("pip install --user ninja", f.fix)
        self.assertEqual(doctor.check_ninja(None, "", presets_need_it=False).status, NOTE)
        self.assertEqual(doctor.check_ninja("/usr/bin/ninja", "1.11.1\n", True).text, "Ninja 1.11.1")

    def test_profiler_tools(self):
        present = {"/usr/local/cuda/bin/ncu", "/usr/local/cuda/bin/compute-sanitizer"}
        f = doctor.check_profiler_tools("/usr/local/cuda/bin/nvcc", present.__contains__, lambda tool: None)
        self.assertEqual(f.status, OK)
        f = doctor.check_profiler_tools("/usr/local/cuda/bin/nvcc", lambda p: False, lambda tool: None)
        self.assertEqual(f.status, NOTE)
        self.assertIn("ncu and compute-sanitizer not found", f.text)
        self.assertIsNone(doctor.check_profiler_tools(None, lambda p: False, lambda tool: None))


class GpuTest(unittest.TestCase):
    def test_visible_gpus(self):
        gpus = doctor.parse_gpu_list(SMI_L_TWO)
        self.assertEqual(doctor.check_visibility(gpus, None).status, OK)
        self.assertEqual(doctor.check_visibility([], None).status, PROBLEM)

    def test_cuda_visible_devices_empty_or_wrong(self):
        gpus = doctor.parse_gpu_list(SMI_L)
        f = doctor.check_visibility(gpus, "")
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("set but empty", f.text)
        self.assertIn("unset CUDA_VISIBLE_DEVICES", f.fix)
        f = doctor.check_visibility(gpus, "3")
        self.assertEqual(f.status, PROBLEM)
        self.assertIn("names no GPU", f.text)
        f = doctor.check_visibility(gpus, "0,7")
        self.assertEqual(f.status, NOTE)
        self.assertIn("'7'", f.text)

    def test_cuda_visible_devices_by_index_and_uuid(self):
        gpus = doctor.parse_gpu_list(SMI_L_TWO)
        self.assertIn("the tests use 1", doctor.check_visibility(gpus, "1").text)
        self.assertEqual(doctor.check_visibility(gpus, "GPU-0a0b0c0d").status, OK)
        self.assertEqual(doctor.check_visibility(gpus, "GPU-ffff").status, PROBLEM)

    def test_counters_restricted_to_administrators(self):
        f = doctor.check_counters(False, PARAMS_RESTRICTED, 1000, driver_ok=True)
        self.assertEqual(f.status, NOTE)
        self.assertIn("RmProfilingAdminOnly: 1", f.text)
        self.assertIn("cannot be measured on this machine", f.text)
        self.assertIn("NVreg_RestrictProfilingToAdminUsers=0", f.fix)
        self.assertIn(doctor.URL_COUNTERS, f.fix)
        self.assertEqual(doctor.check_counters(False, PARAMS_RESTRICTED, 0, True).status, OK)
        self.assertEqual(doctor.check_counters(False, PARAMS_OPEN, 1000, True).status, OK)

    def test_counters_on_wsl_unreadable_or_without_driver(self):
        f = doctor.check_counters(True, None, 1000, True)
        self.assertEqual(f.status, NOTE)
        self.assertIn("Manage GPU Performance Counters", f.fix)
        self.assertEqual(doctor.check_counters(False, None, 1000, True).status, NOTE)
        self.assertIsNone(doctor.check_counters(False, PARAMS_RESTRICTED, 1000, driver_ok=False))

    def test_free_memory(self):
        f, = doctor.check_memory([dict(GPU_4060, **{"memory.free": "3500"})])
        self.assertEqual(f.status, NOTE)
        self.assertIn("3500 MiB free of 8188 MiB, under 4 GiB", f.text)
        f, = doctor.check_memory(doctor.parse_gpu_query(QUERY))
        self.assertEqual(f.status, OK)
        self.assertEqual(doctor.check_memory([dict(GPU_4060, **{"memory.free": "[N/A]"})]), [])

    def test_display_watchdog(self):
        f, = doctor.check_display([GPU_4060], wsl=False)
        self.assertEqual(f.status, NOTE)
        self.assertIn("the launch timed out and was terminated", f.text)
        self.assertEqual(doctor.check_display([GPU_5090], wsl=False), [])
        f, = doctor.check_display([GPU_5090], wsl=True)
        self.assertIn("TDR", f.text)
        self.assertIn(doctor.URL_TDR, f.fix)


class ReportTest(unittest.TestCase):
    def test_format_and_summary(self):
        problem = doctor.Finding(PROBLEM, "cmake", "CMake 3.22.1 is too old", "pip install cmake")
        note = doctor.Finding(NOTE, "memory", "little memory", "close programs")
        ok = doctor.Finding(OK, "python", "Python 3.11.7", "unused")
        self.assertEqual(doctor.format_finding(problem).splitlines(),
                         ["PROBLEM  cmake     CMake 3.22.1 is too old", " " * 19 + "fix: pip install cmake"])
        self.assertEqual(doctor.format_finding(note).splitlines()[1].strip(), "tip: close programs")
        self.assertEqual(doctor.format_finding(ok), "OK       python    Python 3.11.7")
        self.assertIn("1 OK, 1 PROBLEM, 1 NOTE", doctor.summary([problem, note, ok]))
        self.assertIn("ready", doctor.summary([note, ok]))

    def test_exit_status_is_1_only_with_a_problem(self):
        for findings, status in (([doctor.Finding(OK, "python", "3.11")], 0),
                                 ([doctor.Finding(NOTE, "gpu", "x"), doctor.Finding(PROBLEM, "cmake", "y")], 1)):
            out = io.StringIO()
            with mock.patch.object(doctor, "gather_and_check", return_value=findings), \
                    contextlib.redirect_stdout(out):
                self.assertEqual(doctor.main([]), status)
            self.assertTrue(out.getvalue().splitlines()[-1].startswith("doctor: "))

    def test_gathering_with_a_driver_535_and_a_cuda_13_toolkit(self):
        """doctor.py with stand-ins for nvidia-smi and nvcc first on PATH: what they print reaches
        the checks."""
        smi = f"""#!{sys.executable}
import sys
args = sys.argv[1:]
if not args:
    sys.stdout.write({SMI_535!r})
elif args == ["-L"]:
    sys.stdout.write({SMI_L!r})
elif args[0].startswith("--query-gpu="):
    sys.stdout.write({QUERY!r})
else:
    sys.exit(2)
"""
        nvcc = f"""#!{sys.executable}
import sys
sys.stdout.write({NVCC_13_0!r} if sys.argv[1:] == ["--version"] else {CODES_13_0!r})
"""
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in (("nvidia-smi", smi), ("nvcc", nvcc)):
                path = Path(tmp) / name
                path.write_text(text)
                path.chmod(0o755)
            env = dict(os.environ, PATH=tmp + os.pathsep + os.environ.get("PATH", ""))
            env.pop("CUDA_VISIBLE_DEVICES", None)
            p = subprocess.run([sys.executable, str(HERE / "doctor.py")], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True, timeout=120, env=env)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        out = p.stdout
        self.assertIn("OK       driver    NVIDIA driver 535.183.01, supports CUDA up to 12.2", out)
        self.assertIn("PROBLEM  driver    driver 535.183.01 supports CUDA 12.2, older than the CUDA 13.0 "
                      "toolkit", out)
        self.assertIn("OK       gpu       GPU 0: NVIDIA GeForce RTX 4060 Laptop GPU; the tests use GPU 0", out)
        self.assertIn("OK       gpu       nvcc 13.0 builds for NVIDIA GeForce RTX 4060 Laptop GPU (sm_89, Ada)", out)
        self.assertIn("OK       memory    GPU 0 (NVIDIA GeForce RTX 4060 Laptop GPU): 7710 MiB free of 8188 MiB", out)
        if "WSL 2" not in out:
            self.assertIn("NOTE     display   GPU 0 (NVIDIA GeForce RTX 4060 Laptop GPU) drives a display", out)

    def test_it_runs_on_this_machine(self):
        p = subprocess.run([sys.executable, str(HERE / "doctor.py")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        self.assertIn(p.returncode, (0, 1), p.stderr)
        self.assertEqual(p.stderr, "")
        lines = p.stdout.splitlines()
        self.assertTrue(lines[-1].startswith("doctor: "), p.stdout)
        for line in lines[:-1]:
            self.assertRegex(line, r"^(OK|PROBLEM|NOTE) |^ {19}(fix|tip): ")


if __name__ == "__main__":
    unittest.main()
