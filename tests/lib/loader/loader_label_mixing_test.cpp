// The Loader's contract on label mixing (LoaderOptions::check_label_mixing): Open warns, once,
// when the sampler's batches of a class-sorted file mix few classes, naming `h5feed rechunk`
// and the window that would mix; never for a file stored shuffled, nor under the random or
// sequential sampler, nor without labels; and the check changes no batch.

#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "h5feed/loader.h"
#include "support/temp_folder.h"
#include "test_files.h"

namespace h5feed {
namespace {

using testing::TempFolder;

// Foreign files as h5py writes them: 2,000 4x4x3 images in chunks of 20 rows (100 chunks), 20
// classes of 100 images. sorted.h5 stores them class after class (a walk of class folders),
// shuffled.h5 in a shuffled order, unlabelled.h5 without /labels, named.h5 sorted under other
// dataset names.
struct Files {
  Files() {
    testing::RunPython(folder / "write", R"(import h5py, numpy as np
rng = np.random.default_rng(5)
images = rng.integers(0, 256, size=(2000, 4, 4, 3), dtype=np.uint8)
sorted_labels = np.repeat(np.arange(20, dtype=np.int64), 100)
def write(name, labels, images_name='images', labels_name='labels'):
    with h5py.File(')" + folder.path() + R"(/' + name, 'w') as f:
        f.create_dataset(images_name, data=images, chunks=(20, 4, 4, 3))
        if labels is not None:
            f.create_dataset(labels_name, data=labels)
write('sorted.h5', sorted_labels)
write('shuffled.h5', rng.permutation(sorted_labels))
write('unlabelled.h5', None)
write('named.h5', sorted_labels, 'x', 'y')
)");
  }
  TempFolder folder;
  std::string sorted = folder / "sorted.h5";
  std::string shuffled = folder / "shuffled.h5";
  std::string unlabelled = folder / "unlabelled.h5";
  std::string named = folder / "named.h5";
};

struct Opened {
  std::vector<std::string> warnings;
  std::vector<int64_t> rows;  // every row delivered in epochs 0 and 1, in order
};

// Opens `path` with `sampler`, batches of 32, and reads two epochs.
Opened Read(const std::string& path, const char* sampler, bool check = true,
            const char* images = "", const char* labels = "") {
  LoaderOptions options;
  options.batch_size = 32;
  options.sampler = SamplerOptions::Parse(sampler);
  options.cache_bytes = 1 << 20;  // the whole file: no cache warning
  options.threads = 2;
  options.check_label_mixing = check;
  options.images_dataset = images;
  options.labels_dataset = labels;
  Opened opened;
  options.on_warning = [&](const std::string& warning) { opened.warnings.push_back(warning); };
  Loader loader = Loader::Open(path, options);
  for (int epoch = 0; epoch < 2; ++epoch) {
    loader.SetEpoch(epoch);
    while (auto batch = loader.Next()) {
      opened.rows.insert(opened.rows.end(), batch->indices().begin(), batch->indices().end());
    }
  }
  return opened;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("a class-sorted h5py file read by chunks:8 warns once, naming rechunk and a window") {
  const Files files;
  const Opened opened = Read(files.sorted, "chunks:8");
  REQUIRE(opened.warnings.size() == 1);  // at Open; two epochs read after it add nothing
  const std::string& warning = opened.warnings[0];
  MESSAGE(warning);
  CHECK(Contains(warning, "batches of " + files.sorted + " mix few classes"));
  CHECK(Contains(warning, "under sampler chunks:8 a batch of 32 holds"));
  CHECK(Contains(warning, "h5feed rechunk " + files.sorted + " " +
                              (files.folder / "sorted-shuffled.h5") + " --seed 0"));
  CHECK(Contains(warning, "check_label_mixing = false"));
  std::smatch window;
  REQUIRE(std::regex_search(
      warning, window,
      std::regex("sampler chunks:([0-9]+) reaches the bar, with a cache "
                 "of about ([0-9]+) chunks \\(LoaderOptions.cache_bytes of [0-9.]+ KiB")));
  const int w = std::stoi(window[1]);
  CHECK(w > 8);
  CHECK(w < 100);  // a window smaller than the file's 100 chunks mixes
  CHECK(std::stoi(window[2]) == 2 * w);
  // The window it names mixes: opening with it does not warn.
  CHECK(Read(files.sorted, ("chunks:" + std::to_string(w)).c_str()).warnings.empty());
}

TEST_CASE("quasi:8 on a class-sorted file warns too, and names a quasi window") {
  const Files files;
  const Opened opened = Read(files.sorted, "quasi:8");
  REQUIRE(opened.warnings.size() == 1);
  CHECK(Contains(opened.warnings[0], "under sampler quasi:8"));
  CHECK(std::regex_search(opened.warnings[0], std::regex("sampler quasi:[0-9]+ reaches")));
}

TEST_CASE("the rechunk command keeps the dataset names the loader was given") {
  const Files files;
  const Opened opened = Read(files.named, "chunks:8", true, "x", "y");
  REQUIRE(opened.warnings.size() == 1);
  CHECK(Contains(opened.warnings[0], "--seed 0 --images x --labels y"));
}

TEST_CASE("a file stored shuffled never warns, whatever the window") {
  const Files files;
  for (const char* sampler : {"chunks:1", "chunks:8", "quasi:8"}) {
    CAPTURE(sampler);
    CHECK(Read(files.shuffled, sampler).warnings.empty());
  }
}

TEST_CASE("random and sequential samplers, no labels, or the check off: no warning") {
  const Files files;
  CHECK(Read(files.sorted, "random").warnings.empty());        // the reference itself
  CHECK(Read(files.sorted, "sequential").warnings.empty());    // file order, asked for
  CHECK(Read(files.unlabelled, "chunks:8").warnings.empty());  // every label 0
  CHECK(Read(files.sorted, "chunks:8", false).warnings.empty());
}

TEST_CASE("the check changes no batch: the same rows in the same order with it on or off") {
  const Files files;
  const Opened on = Read(files.sorted, "chunks:8", true);
  const Opened off = Read(files.sorted, "chunks:8", false);
  CHECK(on.rows.size() == 4000);
  CHECK(on.rows == off.rows);
}

}  // namespace
}  // namespace h5feed
