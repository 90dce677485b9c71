// ch04_02 profile: Nsight Compute's sector counts for the handed-out AoS kernel and for
// testInnerArray, printed beside the book's nvprof names. testInnerArray's loads and stores must
// use (nearly) every byte of the sectors they move. Without ncu, or where profiling is not
// permitted (ERR_NVGPUCTRPERM), the test is skipped -- never passed.
#include "layout_check.cuh"

#include "cudalab/ncu.hpp"
#include "cudalab/testing.cuh"

namespace {

using Metric = cudalab::NcuMetric;
const Metric kLdPerRequest{"gld_transactions_per_request",
                           "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"};
const Metric kLdEfficiency{"gld_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"};
const Metric kStPerRequest{"gst_transactions_per_request",
                           "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio"};
const Metric kStEfficiency{"gst_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"};

class LayoutMetrics : public cudalab::GpuTest {};

TEST_F(LayoutMetrics, SoaLoadsAndStoresUseWholeSectors) {
  CUDALAB_RUN_NCU(r, "", "testInner", {kLdPerRequest.ncu, kLdEfficiency.ncu, kStPerRequest.ncu, kStEfficiency.ncu});
  std::map<std::string, std::map<std::string, double>> v = r.values;
  const char *base = "testInnerStructBaseline", *cand = "testInnerArray";
  if (!v.count(base) || !v.count(cand) || v[cand].size() < 4 || v[base].size() < 4) {
    std::printf("%s\n", r.output.c_str());
    GTEST_FAIL() << "ncu did not report the four metrics of both kernels; its output is above. Command: " << r.command;
  }

  cudalab::print_profile(r, {base, cand}, {kLdPerRequest, kLdEfficiency, kStPerRequest, kStEfficiency});
  std::printf("[ PROFILE  ] predicted (sector model): AoS 32 sectors per 4-byte request, 12.5 %%; SoA 4, 100 %%\n");
  for (const Metric *m : {&kLdPerRequest, &kLdEfficiency, &kStPerRequest, &kStEfficiency}) {
    RecordProperty(std::string("aos_") + m->nvprof, std::to_string(v[base][m->ncu]));
    RecordProperty(std::string("soa_") + m->nvprof, std::to_string(v[cand][m->ncu]));
  }

  // The profile must see the AoS kernel's scattered loads (predicted 32 sectors per request, 12.5 %),
  // or this test proves nothing.
  if (v[base][kLdPerRequest.ncu] < 16 || v[base][kLdEfficiency.ncu] > 50)
    GTEST_FAIL() << "ncu reports " << v[base][kLdPerRequest.ncu] << " sectors per request and "
                 << v[base][kLdEfficiency.ncu] << " % load efficiency for the AoS baseline (predicted 32 and 12.5 %); "
                 << "the profile cannot be trusted";
  // Efficiency, not sectors per request, is graded: a kernel with 16-byte loads needs 16 sectors per
  // request and wastes nothing. For 4-byte loads 100 % is 4 sectors per request.
  const double min_pct = cudalab::threshold("min_soa_sector_efficiency_pct");
  for (const Metric *e : {&kLdEfficiency, &kStEfficiency}) {
    char line[200];
    std::snprintf(line, sizeof line, "testInnerArray %s: %.1f %%, required >= %g %%", e->nvprof, v[cand][e->ncu],
                  min_pct);
    cudalab::report_profile("min_soa_sector_efficiency_pct", v[cand][e->ncu], min_pct, ">=", line);
  }
  if (v[cand][kLdEfficiency.ncu] < min_pct || v[cand][kStEfficiency.ncu] < min_pct)
    GTEST_FAIL() << "testInnerArray does not use whole sectors: load efficiency " << v[cand][kLdEfficiency.ncu]
                 << " % (" << kLdEfficiency.ncu << ", " << v[cand][kLdPerRequest.ncu]
                 << " sectors per request), store efficiency " << v[cand][kStEfficiency.ncu] << " % ("
                 << kStEfficiency.ncu << "), required >= " << min_pct << " % each";
}

}  // namespace
