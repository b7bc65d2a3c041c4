#pragma once
// A one-line progress bar for long work, drawn on stderr only when stderr is a terminal:
//   converting [##########..........]  52%  1,404/2,700  853 img/s  ETA 0:02  3 skipped
// Messages (warnings) are printed above it without garbling it. Thread-safe: progress and
// messages may come from different threads.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace h5feed::cli {

class ProgressBar {
 public:
  // `enabled` false draws nothing (not a terminal, or --quiet); Message() still prints.
  ProgressBar(std::string label, std::string unit, int64_t total, bool enabled);
  ~ProgressBar();

  // Redraws at most 10 times a second, and always for the last update.
  void Update(int64_t done, int64_t skipped);
  // Prints `line` on its own line above the bar.
  void Message(const std::string& line);
  // Erases the bar (the caller then prints its summary).
  void Finish();

  static bool StderrIsTerminal();

 private:
  void Draw(int64_t done, int64_t skipped);  // requires mutex_
  void Erase();                              // requires mutex_

  std::mutex mutex_;
  std::string label_;
  std::string unit_;
  int64_t total_;
  bool enabled_;
  bool drawn_ = false;
  int64_t last_done_ = 0;
  int64_t last_skipped_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace h5feed::cli
