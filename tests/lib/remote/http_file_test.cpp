// HttpFile against Debian's nginx on the loopback (tests/support/http_servers.py).
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "h5feed/error.h"
#include "remote/http_file.h"
#include "remote/open_remote_file.h"
#include "support/caught_error.h"
#include "support/http_server.h"
#include "support/temp_folder.h"

namespace h5feed::remote {
namespace {

using testing::CaughtError;
using testing::HttpServer;
using testing::TempFolder;

uint8_t Byte(uint64_t i, uint8_t salt) {
  return static_cast<uint8_t>((i * 131 + i / 251 + salt) % 256);
}

void WritePattern(const std::string& path, uint64_t size, uint8_t salt = 0) {
  std::vector<char> bytes(size);
  for (uint64_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(Byte(i, salt));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

TEST_CASE("a served file reads the bytes of the local one, from many threads on few connections") {
  TempFolder folder;
  const uint64_t size = (3 << 20) + 12345;
  WritePattern(folder / "data.bin", size);
  HttpServer server({"nginx", folder.path()});
  RemoteOptions options;
  options.connections = 4;
  const auto file = OpenRemoteFile(Location(server.Url("data.bin"), options));
  CHECK(file->size() == size);
  CHECK(file->path() == server.Url("data.bin"));
  CHECK_FALSE(file->version().empty());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 random(static_cast<uint64_t>(t));
      for (int i = 0; i < 25; ++i) {
        const uint64_t length = 1 + random() % (300 << 10);
        const uint64_t offset = random() % (size - length + 1);
        std::vector<uint8_t> got(length);
        file->ReadAt(offset, got);
        for (uint64_t b = 0; b < length; ++b) {
          if (got[b] != Byte(offset + b, 0)) {
            ++wrong;
            break;
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(wrong == 0);
  // 200 ranges (and the opening one) went out on at most `connections` connections.
  std::set<std::string> connections;
  std::vector<std::string> requests = server.Requests(150);
  for (const std::string& line : requests) connections.insert(line.substr(line.rfind(' ') + 1));
  CHECK(requests.size() >= 150);  // reads within the first 256 KiB come from the head kept at open
  CHECK(connections.size() <= 4);
}

TEST_CASE("a missing object is kNotFound naming its URL, never a pre-signed URL's query") {
  TempFolder folder;
  HttpServer server({"nginx", folder.path()});
  const std::string url =
      server.Url("missing.h5") + "?X-Amz-Credential=AKIDEXAMPLE&X-Amz-Signature=f00dcafe";
  const Error error = CaughtError([&] { OpenRemoteFile(Location(url)); });
  CHECK(error.code() == ErrorCode::kNotFound);
  const std::string text = error.what();
  CHECK(text.find(server.Url("missing.h5")) != std::string::npos);
  CHECK(text.find("f00dcafe") == std::string::npos);
  CHECK(text.find("AKIDEXAMPLE") == std::string::npos);
}

TEST_CASE("an object replaced after it was opened is reported as changed, never read") {
  TempFolder folder;
  WritePattern(folder / "data.bin", 1 << 20);
  HttpServer server({"nginx", folder.path()});
  const auto file = OpenRemoteFile(Location(server.Url("data.bin")));
  std::vector<uint8_t> before(1000);
  file->ReadAt(500000, before);
  // Replaced (as an upload does: a new file renamed over the old one), another size.
  WritePattern(folder / "data.bin.new", (1 << 20) + 1, 7);
  std::filesystem::rename(folder / "data.bin.new", folder / "data.bin");
  std::vector<uint8_t> after(1000);
  const Error error = CaughtError([&] { file->ReadAt(600000, after); });
  CHECK(error.code() == ErrorCode::kIo);
  CHECK(std::string(error.what()).find("changed") != std::string::npos);
  // A new open finds the new version, and refuses to be the old one.
  const auto reopened = OpenRemoteFile(Location(server.Url("data.bin")));
  CHECK(reopened->size() == (1 << 20) + 1);
  CHECK(reopened->version() != file->version());
  const Location old_version = Location(server.Url("data.bin")).AtVersion(file->version());
  const Error pinned = CaughtError([&] { OpenRemoteFile(old_version); });
  CHECK(pinned.code() == ErrorCode::kIo);
  CHECK(std::string(pinned.what()).find("changed") != std::string::npos);
}

TEST_CASE("a read past the end of the object is a truncation, and sends nothing") {
  TempFolder folder;
  WritePattern(folder / "data.bin", 4096);
  HttpServer server({"nginx", folder.path()});
  const auto file = OpenRemoteFile(Location(server.Url("data.bin")));
  const size_t requests = server.Requests().size();
  std::vector<uint8_t> dest(100);
  CHECK(CaughtError([&] { file->ReadAt(4000, dest); }).code() == ErrorCode::kCorrupt);
  CHECK(server.Requests().size() == requests);
}

TEST_CASE("an unreachable server fails after its retries with the reason, not a hang") {
  RemoteOptions options;
  options.retries = 2;
  options.connect_timeout_seconds = 1;
  // A port nothing listens on: connections are refused at once.
  int port = 0;
  {
    TempFolder folder;
    HttpServer server({"nginx", folder.path()});
    port = server.port();
  }
  const auto start = std::chrono::steady_clock::now();
  const Error error = CaughtError([&] {
    OpenRemoteFile(Location("http://127.0.0.1:" + std::to_string(port) + "/a.h5", options));
  });
  CHECK(error.code() == ErrorCode::kIo);
  CHECK(std::string(error.what()).find("3 times") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
}

TEST_CASE("prefetched ranges are fetched once, and read from what was prefetched") {
  TempFolder folder;
  const uint64_t size = 4 << 20;
  WritePattern(folder / "data.bin", size);
  HttpServer server({"nginx", folder.path()});
  const auto file = OpenRemoteFile(Location(server.Url("data.bin")));
  const uint64_t length = 100000;
  std::vector<uint64_t> offsets;
  // Six: before anything is measured, a file holds up to eight requests' worth.
  for (uint64_t offset = 1 << 20; offsets.size() < 6; offset += 3 * length) {
    offsets.push_back(offset);
    CHECK(file->PrefetchAt(offset, length) == RemoteFile::Prefetch::kStarted);
  }
  CHECK(file->PrefetchAt(offsets[0], length) == RemoteFile::Prefetch::kHeld);
  CHECK(file->PrefetchAt(100, 1000) == RemoteFile::Prefetch::kHeld);  // in the head
  for (uint64_t offset : offsets) {
    std::vector<uint8_t> got(length);
    file->ReadAt(offset, got);
    bool same = true;
    for (uint64_t b = 0; b < length; ++b) same = same && got[b] == Byte(offset + b, 0);
    CHECK(same);
  }
  CHECK(server.Requests(1 + offsets.size()).size() ==
        1 + offsets.size());  // the open, then one per range
}

TEST_CASE("prefetches stop at the memory granted, and go on when some is dropped") {
  TempFolder folder;
  WritePattern(folder / "data.bin", 4 << 20);
  HttpServer server({"nginx", folder.path()});
  const auto file = OpenRemoteFile(Location(server.Url("data.bin")));
  const uint64_t length = 100000;
  file->LimitPrefetch(3 * length);
  using Prefetch = RemoteFile::Prefetch;
  CHECK(file->PrefetchAt(1 << 20, length) == Prefetch::kStarted);
  CHECK(file->PrefetchAt(2 << 20, length) == Prefetch::kStarted);
  CHECK(file->PrefetchAt(3 << 20, length) == Prefetch::kStarted);
  CHECK(file->PrefetchAt(3500000, length) == Prefetch::kFull);
  file->DropPrefetch(2 << 20, length);
  // The dropped transfer may still be finishing: its buffer counts until it has.
  for (int i = 0; i < 100 && file->PrefetchAt(3500000, length) == Prefetch::kFull; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(file->PrefetchAt(3500000, length) == Prefetch::kHeld);
  file->DropAllPrefetches();
}

TEST_CASE("cancelling reads ends a read waiting on a stalled server at once") {
  TempFolder folder;
  WritePattern(folder / "data.bin", 2 << 20);
  HttpServer proxy({"proxy", folder.path()});
  RemoteOptions options;
  options.stall_seconds = 30;
  const auto file = OpenRemoteFile(Location(proxy.Url("data.bin"), options));
  proxy.Control("faults=stall:1");
  std::vector<uint8_t> dest(500000);
  const auto start = std::chrono::steady_clock::now();
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    file->CancelReads();
  });
  const Error error = CaughtError([&] { file->ReadAt(1 << 20, dest); });
  canceller.join();
  CHECK(error.code() == ErrorCode::kCancelled);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK(CaughtError([&] { file->ReadAt(1 << 20, dest); }).code() == ErrorCode::kCancelled);
  file->ResumeReads();
  proxy.Control("faults=");
  file->ReadAt(1 << 20, dest);
  CHECK(dest[7] == Byte((1 << 20) + 7, 0));
}

TEST_CASE("the options' cancel flag ends an open waiting on a stalled server, and later requests") {
  TempFolder folder;
  WritePattern(folder / "data.bin", 2 << 20);
  HttpServer proxy({"proxy", folder.path()});
  proxy.Control("faults=stall:1");
  RemoteOptions options;
  options.stall_seconds = 30;  // and 5 retries: minutes, uncancelled
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  options.cancel = cancel;
  const auto start = std::chrono::steady_clock::now();
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel->store(true);
  });
  const Error error =
      CaughtError([&] { OpenRemoteFile(Location(proxy.Url("data.bin"), options)); });
  canceller.join();
  CHECK(error.code() == ErrorCode::kCancelled);
  CHECK(std::string(error.what()).find(proxy.Url("data.bin")) != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  // Set already: a later open asks nothing, and a flag never set changes nothing.
  proxy.Control("faults=");
  const size_t requests = proxy.Requests().size();
  CHECK(CaughtError([&] { OpenRemoteFile(Location(proxy.Url("data.bin"), options)); }).code() ==
        ErrorCode::kCancelled);
  CHECK(proxy.Requests().size() == requests);
  options.cancel = std::make_shared<std::atomic<bool>>(false);
  std::vector<uint8_t> dest(1000);
  OpenRemoteFile(Location(proxy.Url("data.bin"), options))->ReadAt(1 << 20, dest);
  CHECK(dest[7] == Byte((1 << 20) + 7, 0));
}

}  // namespace
}  // namespace h5feed::remote
