#pragma once
// What the open probe program (open_probe_main.cc) and its caller (open_probe.cc) agree on:
// its arguments, its exit codes and how it hands back an error. A probe of another protocol
// version refuses the arguments (kExitUsage), and the caller then opens in-process with a
// warning.
//
//   h5feed-open-probe --protocol 5 --what index|summary --locking auto|on|off
//                     [--images NAME] [--labels NAME] [--parent PID]
//                     [--connections N] [--retries N] [--connect-timeout S] [--stall S]
//                     [--spill-dir DIR] [--spill-bytes N] [--s3-region R]
//                     [--s3-endpoint URL] [--option-name FIELD=NAME ...] -- FILE
//
// --parent: the caller's process id; the probe dies with it (PR_SET_PDEATHSIG).
// --connections ... --spill-bytes: RemoteOptions, for a remote FILE (h5feed/remote_options.h).
// --option-name: how the caller's front end spells RemoteOptions' field FIELD
// (RemoteOptions::option_names), for the fields the remote module's errors name
// (kNamedRemoteFields), so that an error the probe hands back names what the user typed.
//
// The caller gives the probe up when it writes nothing for the stall limit. While it waits
// for a server (a remote FILE), it writes a newline to stderr every kHeartbeatInterval: that
// wait is bounded by the remote options, and is not HDF5 spinning.

#include <chrono>

namespace h5feed::probe {

inline constexpr const char* kProtocolVersion = "5";

// The RemoteOptions fields whose names the caller passes with --option-name.
inline constexpr const char* kNamedRemoteFields[] = {"spill_dir", "stall_seconds"};

// The environment variable that names the probe program, overriding the search
// (probe_location.h).
inline constexpr const char* kProgramVariable = "H5FEED_OPEN_PROBE";

// Exit codes. Anything else (or a signal) means the open ended abnormally: a crash inside HDF5,
// or a sanitizer's report of one (ASan exits 1).
inline constexpr int kExitOpened = 0;
inline constexpr int kExitError = 3;   // a std::exception other than h5feed::Error: on stderr
inline constexpr int kExitUsage = 64;  // arguments it does not understand (EX_USAGE)

// An h5feed::Error ends the probe with kExitErrorCodeBase + its ErrorCode (as an int), after
// kErrorMarker and the error's message on stderr: the caller throws the same Error rather
// than repeating the open to get it (a remote open's retries would then run twice).
inline constexpr int kExitErrorCodeBase = 16;
inline constexpr int kErrorCodeCount = 10;  // ErrorCode's values, kInvalidArgument..kInternal
// An Error::missing_input() (kNotFound of the file itself: a path that is not there, a URL
// answered 404 or 410) ends it with this code instead, the message handed back the same way, so
// the caller's command exits 2 for it as for a missing path (protocol 5).
inline constexpr int kExitMissingInput = kExitErrorCodeBase + kErrorCodeCount;
inline constexpr const char* kErrorMarker = "h5feed-open-probe error:\n";

// Under the least stall limit a caller may set (LoaderOptions::open_probe_stall_seconds >= 1).
inline constexpr std::chrono::milliseconds kHeartbeatInterval{250};

}  // namespace h5feed::probe
