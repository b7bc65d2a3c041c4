#pragma once
// What the open probe program (open_probe_main.cc) and its caller (open_probe.cc) agree on:
// its arguments and its exit codes. A probe of another protocol version refuses the arguments
// (kExitUsage), and the caller then opens in-process with a warning.
//
//   h5feed-open-probe --protocol 2 --what index|summary --locking auto|on|off
//                     [--images NAME] [--labels NAME] [--parent PID]
//                     [--connections N] [--retries N] [--connect-timeout S] [--stall S]
//                     [--spill-dir DIR] [--spill-bytes N] [--s3-region R]
//                     [--s3-endpoint URL] -- FILE
//
// --parent: the caller's process id; the probe dies with it (PR_SET_PDEATHSIG).
// --connections ... --spill-bytes: RemoteOptions, for a remote FILE (h5feed/remote_options.h).

namespace h5feed::probe {

inline constexpr const char* kProtocolVersion = "2";

// The environment variable that names the probe program, overriding the search
// (probe_location.h).
inline constexpr const char* kProgramVariable = "H5FEED_OPEN_PROBE";

// Exit codes. Anything else (or a signal) means the open ended abnormally: a crash inside HDF5,
// or a sanitizer's report of one (ASan exits 1).
inline constexpr int kExitOpened = 0;
inline constexpr int kExitError = 3;   // an h5feed::Error (or std::exception): message on stderr
inline constexpr int kExitUsage = 64;  // arguments it does not understand (EX_USAGE)

}  // namespace h5feed::probe
