// cudalab_info: one line about GPU 0 for the score table ("no GPU: <why>" without one).
#include "cudalab/device.cuh"

#include <cstdio>

int main() {
  std::string why;
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  if (!cudalab::gpu_available(&why)) {
    std::printf("no GPU (%s); CUDA runtime %d.%d\n", why.c_str(), runtime / 1000, (runtime % 1000) / 10);
    return 0;
  }
  cudalab::DeviceInfo d;
  if (cudalab::query_device(0, &d) != cudaSuccess) {
    std::printf("GPU query failed\n");
    return 1;
  }
  std::printf("%s\n", cudalab::describe_device(d).c_str());
  return 0;
}
