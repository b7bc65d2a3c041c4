// The CPU resize (resize_sample.h) against torchvision 0.14's tensor resize on uint8 images
// (transforms.functional.resized_crop, and resize then center_crop), with and without
// antialias, on real-looking photos (tests/data/make_image_folder.py's renderer) and edge
// cases: the whole image, 1-pixel crops, upscaling, downscaling, non-square sources and
// outputs. torchvision computes in float and rounds; the same arithmetic in another order of
// operations may round a value that lies at .5 the other way, so "equal" means within 1 on the
// 0-255 scale, and almost every pixel exactly.
#include "transform/resize_sample.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "h5feed/output_options.h"
#include "support/temp_folder.h"
#include "transform/augment.h"
#include "transform/normalize.h"
#include "transform/output_spec.h"
#include "transform/resize_taps.h"

namespace h5feed::transform {
namespace {

struct Case {
  std::string kind;  // "photo": a resized crop of a box; "shorter": Resize(S), CenterCrop
  int height = 0, width = 0;
  int top = 0, left = 0, box_height = 0, box_width = 0;  // photo
  int shorter = 0;                                       // shorter
  int out_height = 0, out_width = 0;
  bool antialias = true;

  std::string Line() const {
    std::ostringstream line;
    line << kind << ' ' << height << ' ' << width << ' ';
    if (kind == "photo") {
      line << top << ' ' << left << ' ' << box_height << ' ' << box_width << ' ';
    } else {
      line << shorter << ' ';
    }
    line << out_height << ' ' << out_width << ' ' << (antialias ? 1 : 0);
    return line.str();
  }
};

Case Crop(int height, int width, int top, int left, int box_height, int box_width, int out_height,
          int out_width, bool antialias) {
  return Case{"photo",   height, width,      top,       left,     box_height,
              box_width, 0,      out_height, out_width, antialias};
}

Case Shorter(int height, int width, int shorter, int out_height, int out_width, bool antialias) {
  return Case{"shorter", height, width, 0, 0, 0, 0, shorter, out_height, out_width, antialias};
}

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The CPU's delivered uint8 rows for a case, computed in `pieces` row ranges (as the pipeline's
// threads split a sample).
std::vector<uint8_t> Ours(const Case& c, const std::vector<uint8_t>& image, int pieces) {
  const ImageShape shape{c.height, c.width, 3};
  SampleTransform t;
  if (c.kind == "photo") {
    t.rows = {c.top, c.box_height, c.out_height, 0, c.out_height};
    t.columns = {c.left, c.box_width, c.out_width, 0, c.out_width};
  } else {
    AugmentOptions augment;
    augment.resize_shorter = c.shorter;
    augment.center_crop_height = c.out_height;
    augment.center_crop_width = c.out_width;
    const float zero[1] = {0}, one[1] = {1};
    const OutputSpec spec = MakeViewSpec(MakeNormalizeParams(zero, one, 1, 1), shape, augment,
                                         OutputOptions{}, 0, 0, "output.augment");
    t = DrawTransform(spec.augment, 0, 0, 0);
  }
  const auto row_bytes = static_cast<size_t>(c.out_width) * 3;
  std::vector<uint8_t> out(static_cast<size_t>(c.out_height) * row_bytes);
  for (int p = 0; p < pieces; ++p) {
    const int64_t begin = int64_t{c.out_height} * p / pieces;
    const int64_t end = int64_t{c.out_height} * (p + 1) / pieces;
    ResizeSampleRows(image.data(), shape, t, c.antialias, begin, end,
                     out.data() + static_cast<size_t>(begin) * row_bytes);
  }
  return out;
}

// The definition resize_taps.h gives, computed plainly: per delivered pixel and channel, the
// horizontal sums of each stored row the vertical taps read, then the vertical sum, both in tap
// order from an exact zero, then RoundToByte. The GPU kernel computes this too, so the CPU
// path must equal it bit for bit (tests/lib/cuda checks the kernel where a device exists).
std::vector<uint8_t> Definition(const std::vector<uint8_t>& image, const ImageShape& shape,
                                const SampleTransform& t, bool antialias) {
  const int channels = static_cast<int>(shape.channels);
  std::vector<uint8_t> out(static_cast<size_t>(t.rows.out) * t.columns.out * channels);
  std::vector<float> wy(static_cast<size_t>(MaxTaps(t.rows, antialias)));
  std::vector<float> wx(static_cast<size_t>(MaxTaps(t.columns, antialias)));
  for (int y = 0; y < t.rows.out; ++y) {
    int ny = 0;
    const int32_t first_y = ComputeTaps(t.rows, antialias, y, wy.data(), &ny);
    for (int x = 0; x < t.columns.out; ++x) {
      int nx = 0;
      const int32_t first_x = ComputeTaps(t.columns, antialias, x, wx.data(), &nx);
      for (int c = 0; c < channels; ++c) {
        float sum = 0.0f;
        for (int ky = 0; ky < ny; ++ky) {
          float row = 0.0f;
          for (int kx = 0; kx < nx; ++kx) {
            const size_t at =
                (static_cast<size_t>(first_y + ky) * shape.width + first_x + kx) * channels + c;
            row = row + wx[kx] * static_cast<float>(image[at]);
          }
          sum = sum + wy[ky] * row;
        }
        out[(static_cast<size_t>(y) * t.columns.out + x) * channels + c] = RoundToByte(sum);
      }
    }
  }
  return out;
}

// Random images, boxes and output sizes (odd widths, row lengths that are no multiple of the
// kernels' register widths) through `kernels`, against Definition.
void CheckDefinition(ResizeKernels kernels) {
  REQUIRE(UseResizeKernels(kernels));
  uint64_t state = 26;
  const auto next = [&state](int64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int32_t>((state >> 33) % static_cast<uint64_t>(bound));
  };
  for (int trial = 0; trial < 66; ++trial) {
    // The last two: RandomResizedCrop(224) of a 384 x 512 photo, RGB and RGBA.
    const bool photo = trial >= 64;
    const int channels = photo ? 3 + trial % 2 : 1 + trial % 4;
    const ImageShape shape =
        photo ? ImageShape{384, 512, channels} : ImageShape{8 + next(300), 8 + next(300), channels};
    std::vector<uint8_t> image(static_cast<size_t>(shape.bytes()));
    for (uint8_t& v : image) v = static_cast<uint8_t>(next(256));
    SampleTransform t;
    const int32_t box_height = photo ? 301 : 1 + next(shape.height);
    const int32_t box_width = photo ? 397 : 1 + next(shape.width);
    const int32_t out_height = photo ? 224 : 1 + next(120);
    const int32_t out_width = photo ? 224 : 1 + next(120);
    t.rows = {next(shape.height - box_height + 1), box_height, out_height, 0, out_height};
    t.columns = {next(shape.width - box_width + 1), box_width, out_width, 0, out_width};
    const bool antialias = trial % 3 != 0;
    CAPTURE(trial);
    const std::vector<uint8_t> expected = Definition(image, shape, t, antialias);
    const auto row_bytes = static_cast<size_t>(out_width) * channels;
    std::vector<uint8_t> ours(expected.size());
    const int split = 1 + next(out_height);  // two row ranges, as two threads take them
    ResizeSampleRows(image.data(), shape, t, antialias, 0, split, ours.data());
    ResizeSampleRows(image.data(), shape, t, antialias, split, out_height,
                     ours.data() + static_cast<size_t>(split) * row_bytes);
    CHECK(ours == expected);
  }
}

// Puts back the kernels the CPU chose, whichever way the test case ends: the other tests of the
// program run after it.
struct RestoreKernels {
  ResizeKernels chosen = ResizeKernelsInUse();
  ~RestoreKernels() { UseResizeKernels(chosen); }
};

TEST_CASE("the resize equals its definition bit for bit, for 1 to 4 channels and any row split") {
  const RestoreKernels restore;
  const std::string path = restore.chosen == ResizeKernels::kAvx2 ? "AVX2" : "baseline";
  MESSAGE("this CPU runs the resize's " << path << " kernels");
  SUBCASE("the baseline kernels") { CheckDefinition(ResizeKernels::kBaseline); }
  SUBCASE("the AVX2 kernels, where the CPU has AVX2") {
    if (restore.chosen == ResizeKernels::kAvx2) CheckDefinition(ResizeKernels::kAvx2);
  }
}

TEST_CASE("a resized crop equals torchvision's resized_crop on uint8 photos within 1") {
  std::vector<Case> cases;
  for (bool antialias : {true, false}) {
    cases.push_back(Crop(256, 256, 0, 0, 256, 256, 224, 224, antialias));    // the whole image
    cases.push_back(Crop(256, 256, 0, 0, 256, 256, 256, 256, antialias));    // identity
    cases.push_back(Crop(240, 320, 17, 31, 180, 200, 224, 224, antialias));  // shrink, non-square
    cases.push_back(Crop(256, 256, 100, 40, 1, 90, 224, 224, antialias));    // 1 row tall
    cases.push_back(Crop(256, 256, 10, 255, 120, 1, 224, 224, antialias));   // 1 column wide
    cases.push_back(Crop(64, 80, 5, 7, 1, 1, 32, 48, antialias));            // 1 pixel
    cases.push_back(Crop(256, 256, 70, 90, 41, 57, 224, 224, antialias));    // 4-5x upscale
    cases.push_back(Crop(300, 400, 0, 0, 300, 400, 37, 93, antialias));      // 4-8x shrink
    cases.push_back(Crop(320, 180, 40, 10, 250, 160, 96, 160, antialias));   // mixed
    cases.push_back(Shorter(240, 320, 256, 224, 224, antialias));  // landscape up, then crop
    cases.push_back(Shorter(375, 500, 256, 224, 224, antialias));  // ImageNet-sized, down
    cases.push_back(Shorter(333, 211, 96, 95, 90, antialias));     // portrait, odd offsets
  }
  testing::TempFolder folder;
  {
    std::ofstream list(folder / "cases.txt");
    for (const Case& c : cases) list << c.Line() << '\n';
  }
  const std::string command = std::string(H5FEED_PYTHON) + " " + H5FEED_TORCHVISION_REFERENCE +
                              " resize " + (folder / "cases.txt") + " " + folder.path();
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);

  int64_t pixels = 0;
  int64_t off_by_one = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& c = cases[k];
    CAPTURE(c.Line());
    const std::vector<uint8_t> image = ReadFile(folder / (std::to_string(k) + ".image"));
    const std::vector<uint8_t> expected = ReadFile(folder / (std::to_string(k) + ".expected"));
    REQUIRE(image.size() == static_cast<size_t>(c.height) * c.width * 3);
    const std::vector<uint8_t> ours = Ours(c, image, 1);
    REQUIRE(ours.size() == expected.size());
    int worst = 0;
    for (size_t i = 0; i < ours.size(); ++i) {
      const int difference = std::abs(int{ours[i]} - int{expected[i]});
      worst = std::max(worst, difference);
      off_by_one += difference != 0;
    }
    pixels += static_cast<int64_t>(ours.size());
    CHECK(worst <= 1);
    // The rows of a sample split among threads: the same bytes.
    CHECK(Ours(c, image, 3) == ours);
  }
  // The weights are PyTorch's bit for bit; its sums may be formed in another order or fused
  // (its AVX2 kernels), so a value whose exact result is an integer and a half may round the
  // other way: 245 of the 2.7 million here (0.009%).
  CHECK(off_by_one < pixels / 2000);
}

}  // namespace
}  // namespace h5feed::transform
