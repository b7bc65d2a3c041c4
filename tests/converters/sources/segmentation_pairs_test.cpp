#include "sources/segmentation_pairs.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "h5feed/error.h"
#include "scratch_dir.h"
#include "support/caught_error.h"

namespace h5feed::converters {
namespace {

using testing::CodeOf;
using testing::ScratchDir;
using testing::WriteText;

TEST_CASE("a pair key is the path without its extension and the given suffix") {
  CHECK(PairKey("2007_000032.jpg", "") == "2007_000032");
  CHECK(PairKey("aachen/aachen_1_leftImg8bit.png", "_leftImg8bit") == "aachen/aachen_1");
  CHECK(PairKey("aachen/aachen_1_gtFine_labelIds.png", "_gtFine_labelIds") == "aachen/aachen_1");
  // A suffix that is the whole stem, or absent, is kept: the name must keep a stem.
  CHECK(PairKey("a.b/_x.png", "_x") == "a.b/_x");
  CHECK(PairKey("a.b/noext", "") == "a.b/noext");
}

TEST_CASE("images pair with masks by key, sorted, with missing masks and orphans counted") {
  ScratchDir dir;
  const std::string images = dir.path() + "/JPEGImages", masks = dir.path() + "/Seg";
  for (const char* name : {"b.jpg", "a.JPG", "c.png", "notes.txt", "sub/d.jpeg"}) {
    WriteText(images + "/" + name, "x");
  }
  for (const char* name : {"a.png", "b.PNG", "sub/d.png", "orphan.png", "a.txt"}) {
    WriteText(masks + "/" + name, "x");
  }
  const SegmentationListing listing = ListSegmentationPairs(images, masks);
  REQUIRE(listing.pairs.size() == 4);
  CHECK(listing.pairs[0].image == "a.JPG");
  CHECK(listing.pairs[0].mask == "a.png");
  CHECK(listing.pairs[1].mask == "b.PNG");
  CHECK(listing.pairs[2].image == "c.png");
  CHECK(listing.pairs[2].mask.empty());
  CHECK(listing.pairs[2].key == "c");
  CHECK(listing.pairs[3].image == "sub/d.jpeg");
  CHECK(listing.pairs[3].mask == "sub/d.png");
  CHECK(listing.masks_without_image == 1);
  CHECK(listing.mask_without_image == "orphan.png");
}

TEST_CASE("an image list keeps the images it names, in the listing's order") {
  ScratchDir dir;
  for (const char* name : {"a.jpg", "b.jpg", "c.jpg"}) WriteText(dir.path() + "/i/" + name, "x");
  for (const char* name : {"a.png", "c.png", "z.png"}) WriteText(dir.path() + "/m/" + name, "x");
  SegmentationListing listing = ListSegmentationPairs(dir.path() + "/i", dir.path() + "/m");
  WriteText(dir.path() + "/train.txt",
            "\xEF\xBB\xBF"
            "c\n\n  a \r\n");  // Notepad's BOM
  KeepListed(listing, dir.path() + "/train.txt");
  REQUIRE(listing.pairs.size() == 2);
  CHECK(listing.pairs[0].image == "a.jpg");
  CHECK(listing.pairs[1].mask == "c.png");
  CHECK(listing.masks_without_image == 0);

  WriteText(dir.path() + "/val.txt", "a\nq\n");
  std::string message;
  CHECK(CodeOf([&] { KeepListed(listing, dir.path() + "/val.txt"); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("\"q\"") != std::string::npos);
  CHECK(CodeOf([&] { KeepListed(listing, dir.path() + "/none.txt"); }) == ErrorCode::kNotFound);
}

TEST_CASE("of two masks of one key, the one whose name carries the mask suffix is the mask") {
  ScratchDir dir;
  WriteText(dir.path() + "/i/a.jpg", "x");
  for (const char* name : {"a.png", "a_mask.png"}) WriteText(dir.path() + "/m/" + name, "x");
  const SegmentationListing listing =
      ListSegmentationPairs(dir.path() + "/i", dir.path() + "/m", "", "_mask");
  REQUIRE(listing.pairs.size() == 1);
  CHECK(listing.pairs[0].mask == "a_mask.png");
}

TEST_CASE("in one folder of images and masks, a file taken as a mask is not also an image") {
  ScratchDir dir;
  // x.png beside x_mask.png (Kaggle-style sets), y.jpg beside y.png: x.png was paired with
  // itself as its own mask, and the masks were listed as images without masks.
  for (const char* name :
       {"x.png", "x_mask.png", "y.jpg", "y.png", "sub/z.png", "sub/z_mask.png"}) {
    WriteText(dir.path() + "/d/" + name, "x");
  }
  const SegmentationListing listing =
      ListSegmentationPairs(dir.path() + "/d", dir.path() + "/d/", "", "_mask");
  REQUIRE(listing.pairs.size() == 3);
  CHECK(listing.pairs[0].image == "sub/z.png");
  CHECK(listing.pairs[0].mask == "sub/z_mask.png");
  CHECK(listing.pairs[1].image == "x.png");
  CHECK(listing.pairs[1].mask == "x_mask.png");
  CHECK(listing.pairs[2].image == "y.jpg");
  CHECK(listing.pairs[2].mask == "y.png");
  CHECK(listing.masks_without_image == 0);
}

TEST_CASE("an image list line that misses the subfolder is refused showing a key of the folder") {
  ScratchDir dir;
  WriteText(dir.path() + "/i/aachen/a_1_leftImg8bit.png", "x");
  WriteText(dir.path() + "/m/aachen/a_1.png", "x");
  SegmentationListing listing =
      ListSegmentationPairs(dir.path() + "/i", dir.path() + "/m", "_leftImg8bit");
  WriteText(dir.path() + "/list.txt", "a_1\n");
  std::string message;
  CHECK(CodeOf([&] { KeepListed(listing, dir.path() + "/list.txt"); }, &message) ==
        ErrorCode::kInvalidArgument);
  CHECK(message.find("e.g. \"a_1\"") != std::string::npos);
  CHECK(message.find("without its extension and _leftImg8bit, such as \"aachen/a_1\"") !=
        std::string::npos);
}

TEST_CASE("a linked subfolder keeps its name in the key, and a symlink loop is walked once") {
  ScratchDir dir;
  for (const char* name : {"a.jpg", "b.jpg"}) WriteText(dir.path() + "/storage/" + name, "x");
  for (const char* name : {"train/a.png", "train/b.png"}) WriteText(dir.path() + "/m/" + name, "x");
  std::filesystem::create_directories(dir.path() + "/i");
  // A subfolder linked from shared storage: fs::relative resolved the link, which gave keys
  // "../storage/a" that no mask has. A link to the folder itself listed every file again under
  // each of loop/, loop/loop/, ... until the path was too long.
  std::filesystem::create_directory_symlink(dir.path() + "/storage", dir.path() + "/i/train");
  std::filesystem::create_directory_symlink(".", dir.path() + "/i/loop");
  std::filesystem::create_directory_symlink("..", dir.path() + "/m/train/up");
  const SegmentationListing listing = ListSegmentationPairs(dir.path() + "/i", dir.path() + "/m");
  REQUIRE(listing.pairs.size() == 2);
  CHECK(listing.pairs[0].image == "train/a.jpg");
  CHECK(listing.pairs[0].mask == "train/a.png");
  CHECK(listing.pairs[1].key == "train/b");
  CHECK(listing.masks_without_image == 0);
}

TEST_CASE("folders that share no name are an error naming both keys") {
  ScratchDir dir;
  WriteText(dir.path() + "/i/x_leftImg8bit.png", "x");
  WriteText(dir.path() + "/m/x_gtFine_labelIds.png", "x");
  try {
    ListSegmentationPairs(dir.path() + "/i", dir.path() + "/m");
    FAIL("no pair was listed");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    CHECK(std::string(e.what()).find("x_gtFine_labelIds") != std::string::npos);
    // Without a front end's names, the C++ options' fields.
    CHECK(std::string(e.what()).find("SegmentationOptions.mask_suffix") != std::string::npos);
  }
  CHECK(ListSegmentationPairs(dir.path() + "/i", dir.path() + "/m", "_leftImg8bit",
                              "_gtFine_labelIds")
            .pairs[0]
            .mask == "x_gtFine_labelIds.png");
  CHECK(CodeOf([&] { ListSegmentationPairs(dir.path() + "/none", dir.path() + "/m"); }) ==
        ErrorCode::kNotFound);
}

}  // namespace
}  // namespace h5feed::converters
