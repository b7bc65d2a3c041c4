#pragma once
// Exit codes of the h5feed command, documented in docs/command.md ("Exit codes and messages").

namespace h5feed::cli {

inline constexpr int kExitOk = 0;             // everything asked for was done
inline constexpr int kExitFailed = 1;         // failed; no output file was left behind
inline constexpr int kExitUsage = 2;          // wrong command line; nothing was done
inline constexpr int kExitSkipped = 3;        // converted, but some inputs were skipped (listed)
inline constexpr int kExitDamaged = 4;        // verify: the file is damaged (every fault listed)
inline constexpr int kExitInterrupted = 130;  // stopped by Ctrl-C (128 + SIGINT); nothing left

}  // namespace h5feed::cli
