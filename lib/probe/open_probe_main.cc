// h5feed-open-probe: the program the open probe runs (open_probe.h). It does the HDF5 open the
// caller is about to do, in this separate process, so that a crash or a hang inside HDF5 ends
// this process and not the caller. Arguments and exit codes: open_probe_protocol.h.
//
// It leaves with _exit: nothing of HDF5's shutdown or of a leak checker's report (HDF5 leaks
// on the malformed files it refuses) may turn an ordinary refusal into an abnormal exit.

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "enum_names.h"
#include "h5feed/error.h"
#include "index/dataset_index.h"
#include "probe/open_probe_protocol.h"
#include "remote/network_wait.h"
#include "source/open_chunk_source.h"
#include "summary/file_summary.h"

namespace {

using namespace h5feed;

struct Request {
  std::string what;  // index | summary
  FileLocking locking = FileLocking::kAuto;
  std::string images;
  std::string labels;
  std::string path;
  pid_t parent = 0;  // the caller; 0 = not said
  RemoteOptions remote;
  // The caller's names of RemoteOptions' fields (--option-name FIELD=NAME).
  std::map<std::string, std::string, std::less<>> option_names;
};

[[noreturn]] void Leave(int code) {
  std::fflush(nullptr);
  ::_exit(code);
}

[[noreturn]] void Usage(const std::string& why) {
  std::fprintf(stderr,
               "h5feed-open-probe: %s\nusage: h5feed-open-probe --protocol %s --what "
               "index|summary --locking %s [--images NAME] [--labels NAME] "
               "[--connections N] [--retries N] [--connect-timeout S] [--stall S] "
               "[--spill-dir DIR] [--spill-bytes N] [--s3-region R] [--s3-endpoint URL] "
               "[--option-name FIELD=NAME ...] -- FILE\n"
               "(run by h5feed's Loader and `h5feed inspect`, not by hand)\n",
               why.c_str(), probe::kProtocolVersion, enum_names::Listed<FileLocking>("|").c_str());
  Leave(probe::kExitUsage);
}

Request Parse(int argc, char** argv) {
  Request request;
  bool protocol_seen = false;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") break;
    if (i + 1 >= argc) Usage(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--protocol") {
      if (value != probe::kProtocolVersion) Usage("protocol " + value + " is not this probe's");
      protocol_seen = true;
    } else if (arg == "--what") {
      request.what = value;
    } else if (arg == "--locking") {
      const std::optional<FileLocking> locking = FindName<FileLocking>(value);
      if (!locking) Usage("--locking " + value + " is not one of the words below");
      request.locking = *locking;
    } else if (arg == "--images") {
      request.images = value;
    } else if (arg == "--labels") {
      request.labels = value;
    } else if (arg == "--parent") {
      request.parent = static_cast<pid_t>(std::atol(value.c_str()));
    } else if (arg == "--connections") {
      request.remote.connections = std::atoi(value.c_str());
    } else if (arg == "--retries") {
      request.remote.retries = std::atoi(value.c_str());
    } else if (arg == "--connect-timeout") {
      request.remote.connect_timeout_seconds = std::atoi(value.c_str());
    } else if (arg == "--stall") {
      request.remote.stall_seconds = std::atoi(value.c_str());
    } else if (arg == "--spill-dir") {
      request.remote.spill_dir = value;
    } else if (arg == "--spill-bytes") {
      request.remote.spill_bytes = std::atoll(value.c_str());
    } else if (arg == "--s3-region") {
      request.remote.s3_region = value;
    } else if (arg == "--s3-endpoint") {
      request.remote.s3_endpoint = value;
    } else if (arg == "--option-name") {
      const size_t equals = value.find('=');
      if (equals == std::string::npos) Usage("--option-name " + value + " is not FIELD=NAME");
      request.option_names[value.substr(0, equals)] = value.substr(equals + 1);
    } else {
      Usage("unknown argument " + arg);
    }
  }
  if (!protocol_seen) Usage("no --protocol");
  if (request.what != "index" && request.what != "summary") Usage("--what index|summary");
  if (i + 2 != argc) Usage("one FILE after --");
  request.path = argv[i + 1];
  if (!request.option_names.empty()) {
    request.remote.option_names = [names = request.option_names](std::string_view field) {
      const auto named = names.find(field);
      return named == names.end() ? std::string() : named->second;
    };
  }
  return request;
}

// What Loader::Open does with HDF5 (lib/loader/loader.cc): the index, then the chunk source,
// whose reader opens a foreign file's image dataset again for reading through HDF5.
void OpenAsLoader(const Request& request) {
  index::IndexOptions options;
  options.images = request.images;
  options.labels = request.labels;
  options.file_locking = request.locking;
  options.remote = request.remote;
  const index::DatasetIndex dataset = index::OpenDatasetIndex(request.path, options);
  const std::unique_ptr<source::ChunkSource> chunks = source::OpenChunkSource(dataset, {});
}

// A probe spinning inside HDF5 outlives nothing: when the caller dies (killed while it
// waits), the kernel kills the probe too. (The death signal follows the thread that started
// it, which waits for it until it ends.) A caller already gone before this point is seen as
// a changed parent.
void DieWithParent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent != 0 && ::getppid() != parent) Leave(probe::kExitUsage);
}

}  // namespace

int main(int argc, char** argv) {
  const Request request = Parse(argc, argv);
  DieWithParent(request.parent);
  try {
    // Waiting for a server is not a hang: its stall limit and retries bound it, and the
    // caller's watchdog, which counts silence, must not take a stalling server for HDF5
    // spinning on a damaged file (open_probe_protocol.h).
    const remote::NetworkWaitHeartbeat heartbeat(
        [] { [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, "\n", 1); },
        probe::kHeartbeatInterval);
    if (request.what == "index") {
      OpenAsLoader(request);
    } else {
      summary::SummarizeFile(request.path, request.remote);
    }
  } catch (const Error& e) {  // ordinary: the caller throws it (open_probe_protocol.h)
    std::fprintf(stderr, "%s%s\n", probe::kErrorMarker, e.what());
    Leave(e.missing_input() ? probe::kExitMissingInput
                            : probe::kExitErrorCodeBase + static_cast<int>(e.code()));
  } catch (const std::exception& e) {  // out of memory, a bug: the caller opens in-process
    std::fprintf(stderr, "%s\n", e.what());
    Leave(probe::kExitError);
  }
  Leave(probe::kExitOpened);
}
