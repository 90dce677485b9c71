# Third-party dependencies: the CUDA Toolkit, GoogleTest and Python 3 (for the grade step).

find_package(CUDAToolkit 12.0 REQUIRED)

# GoogleTest: the installed package first, the release tarball as a fallback.
find_package(GTest 1.11 QUIET)
if(NOT GTest_FOUND)
  message(STATUS "cuda-labs: GoogleTest not installed, fetching it")
  include(FetchContent)
  FetchContent_Declare(googletest
    URL https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz
    DOWNLOAD_EXTRACT_TIMESTAMP TRUE)
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  FetchContent_MakeAvailable(googletest)
  if(NOT TARGET GTest::gtest)
    add_library(GTest::gtest ALIAS gtest)
  endif()
endif()
include(GoogleTest)

find_package(Python3 3.8 COMPONENTS Interpreter)
if(NOT Python3_FOUND)
  message(WARNING "cuda-labs: Python 3 not found: tests still run, but no score table is printed")
endif()
