// Verify over a link that corrupts responses (tests/support/fault_proxy.py in front of
// Debian's nginx): verify reads chunks through the file's chunk source, as the Loader does, so
// a chunk corrupted on its way is fetched again rather than reported as damage; only a chunk
// that arrives damaged every time is reported.

#include <doctest/doctest.h>

#include <string>

#include "h5feed/verify.h"
#include "index/dataset_index.h"
#include "lib/index/index_test_files.h"
#include "support/http_server.h"
#include "support/temp_folder.h"
#include "verify/chunk_verification.h"

namespace h5feed::verify {
namespace {

using testing::HttpServer;
using testing::TempFolder;

constexpr ImageShape kShape{32, 32, 3};
constexpr int64_t kSamples = 400;  // 25 chunks of 16 images, 48 KiB each

// Counter `kind` of the proxy's JSON ("\"corrupt\": 3").
int Count(const std::string& stats, const std::string& kind) {
  const size_t at = stats.find("\"" + kind + "\": ");
  return at == std::string::npos ? -1 : std::stoi(stats.substr(at + kind.size() + 4));
}

// The chunks of the served file checked after the proxy starts to inject `faults`: the index
// is read over a sound link first, as the faults are the chunks' business here.
VerificationReport CheckServedChunks(const std::string& faults) {
  TempFolder folder;
  testing::WriteH5feedFile(folder / "train.h5", Compression{Compression::Kind::kNone}, kSamples, 16,
                           kShape);
  HttpServer proxy({"proxy", folder.path()});
  index::IndexOptions options;
  options.check_labels = false;
  const index::DatasetIndex dataset = index::OpenDatasetIndex(proxy.Url("train.h5"), options);
  proxy.Control(faults);
  VerificationReport report;
  CheckChunks(dataset, VerifyOptions{}, report);
  INFO(proxy.Control(""));
  CHECK(report.chunks_checked == dataset.chunk_count());
  // The one corrupted response of the first case was met, and got past.
  if (faults.find("limit=1") != std::string::npos) CHECK(Count(proxy.Control(""), "corrupt") == 1);
  return report;
}

TEST_CASE("verify fetches a chunk corrupted on its way again and finds the file sound") {
  const VerificationReport report = CheckServedChunks("faults=corrupt:1&limit=1&seed=1");
  CHECK(report.bad_chunks.empty());
  CHECK(report.bad_images.empty());
}

TEST_CASE("verify reports a chunk that arrives corrupted every time") {
  const VerificationReport report = CheckServedChunks("faults=corrupt:1&seed=1");
  CHECK_FALSE(report.bad_chunks.empty());
}

}  // namespace
}  // namespace h5feed::verify
