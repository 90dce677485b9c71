# The stand-in for a test program that cannot list its tests or lists none (cmake/DiscoverTests.cmake):
#   cmake "-DWHY=<reason>" -P NoTests.cmake
# It fails with the reason, and the grade step scores the lab out of grading.json's total_points, as
# for a lab that did not build (the test is named <program>_NOT_BUILT), instead of leaving the lab
# out of the total.
message("[ CUDALAB  ] reason: ${WHY}")
message(FATAL_ERROR "no tests")
