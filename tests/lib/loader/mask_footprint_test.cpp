// The masks Open's memory check counts (loader/options_check.h, DatasetFootprint::mask_bytes)
// as Loader::Open plans them (DeliveryPlan::HostMaskBytesPerRow), on real files: no file made
// here is large enough to reach the check itself, so the numbers it is given are checked.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "index/dataset_index.h"
#include "lib/loader/geometry_test_file.h"
#include "loader/delivery_plan.h"
#include "loader/options_check.h"
#include "loader/reading_plan.h"
#include "support/temp_folder.h"

namespace h5feed::loader {
namespace {

std::vector<FieldSpec> Asked(const index::DatasetIndex& dataset, const std::string& name) {
  for (const FieldSpec& spec : dataset.fields) {
    if (spec.name == name) return {spec};
  }
  FAIL("no field " << name);
  return {};
}

TEST_CASE("a file of images at their own size of one size, read without views, counts its masks") {
  // Read as it is (no crop, not normalized: no views), its uint16 masks come at the one stored
  // size, 60 x 80: the check counted none for such a file before.
  testing::TempFolder folder;
  const std::string path = folder / "one_size.h5";
  testing::WriteGeometryTestFile(path, 12, /*own_size=*/true, FieldType::kUint16, "zstd",
                                 /*all_one_size=*/true);
  const index::DatasetIndex dataset = index::OpenDatasetIndex(path, {});
  REQUIRE_FALSE(dataset.rows.uniform());
  LoaderOptions options;
  options.normalize = false;
  options.batch_size = 4;
  options.slots = 3;
  const ReadingPlan reading = PlanReading(options, dataset);
  CHECK(reading.decodes_at_gather);
  CHECK(reading.gathered == ImageShape{60, 80, 3});
  const std::vector<FieldSpec> asked = Asked(dataset, "mask");
  const DeliveryPlan delivery = PlanDelivery(options, reading, 4, asked);
  CHECK_FALSE(delivery.views);
  const int64_t mask_bytes = delivery.HostMaskBytesPerRow(asked, reading.gathered);
  CHECK(mask_bytes == 60 * 80 * 2);
  // Each slot's batch holds its rows' masks: 3 slots x 4 rows x 9,600 bytes on top.
  DatasetFootprint footprint{.samples_per_rank = 12,
                             .batch_capacity = 4,
                             .image_bytes = reading.gathered.bytes(),
                             .slot = delivery.slot_contents(options),
                             .chunk_bytes = dataset.chunk_bytes(),
                             .chunks = dataset.chunk_count()};
  const double without = CommittedBytes(options, footprint);
  footprint.mask_bytes = mask_bytes;
  CHECK(CommittedBytes(options, footprint) - without == 3.0 * 4 * 60 * 80 * 2);
  // Boxes are no mask: nothing counted for them.
  CHECK(delivery.HostMaskBytesPerRow(Asked(dataset, "boxes"), reading.gathered) == 0);
}

TEST_CASE("with views the masks are counted at each view's room") {
  testing::TempFolder folder;
  const std::string path = folder / "own_size.h5";
  testing::WriteGeometryTestFile(path, 12, /*own_size=*/true);
  const index::DatasetIndex dataset = index::OpenDatasetIndex(path, {});
  LoaderOptions options;
  options.normalize = true;
  options.output.augment.random_resized_crop.height = 24;
  options.output.augment.random_resized_crop.width = 32;
  const ReadingPlan reading = PlanReading(options, dataset);
  CHECK(reading.crops_at_gather);
  const std::vector<FieldSpec> asked = Asked(dataset, "mask");
  const DeliveryPlan delivery = PlanDelivery(options, reading, 4, asked);
  REQUIRE(delivery.views);
  CHECK(delivery.HostMaskBytesPerRow(asked, reading.gathered) == 24 * 32 * 2);
}

}  // namespace
}  // namespace h5feed::loader
