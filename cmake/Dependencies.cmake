# Third-party dependencies: the CUDA Toolkit, GoogleTest and Python 3 (for the grade step).

find_package(CUDAToolkit 12.0 REQUIRED)

# GoogleTest: the installed package (GTestConfig.cmake, 1.11 or newer) first; otherwise the v1.14.0
# release archive, checked against its published SHA-256 before it is unpacked (a changed or
# corrupted download is a configure error, never built). FIND_PACKAGE_ARGS needs CMake 3.24.
include(FetchContent)
FetchContent_Declare(googletest
  URL https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz
  URL_HASH SHA256=8ad598c73ad796e0d8280b082cebd82a630d73e73cd3c70057938a6501bba5d7
  DOWNLOAD_EXTRACT_TIMESTAMP TRUE
  FIND_PACKAGE_ARGS 1.11 NAMES GTest)
set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
FetchContent_MakeAvailable(googletest)
if(TARGET gtest)
  message(STATUS "cuda-labs: GoogleTest not installed: built from the v1.14.0 release archive")
  if(NOT TARGET GTest::gtest)
    add_library(GTest::gtest ALIAS gtest)
  endif()
else()
  message(STATUS "cuda-labs: GoogleTest ${googletest_VERSION} found (${googletest_DIR})")
endif()
include(GoogleTest)

find_package(Python3 3.8 COMPONENTS Interpreter)
if(NOT Python3_FOUND)
  message(WARNING "cuda-labs: Python 3 not found: tests still run, but no score table is printed")
endif()
