#include "progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "units.h"

namespace h5feed::cli {

ProgressBar::ProgressBar(std::string label, std::string unit, int64_t total, bool enabled)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { Finish(); }

bool ProgressBar::StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

void ProgressBar::Update(int64_t done, int64_t skipped) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_done_ = done;
  last_skipped_ = skipped;
  auto now = std::chrono::steady_clock::now();
  if (!enabled_ || (done < total_ && now - last_draw_ < std::chrono::milliseconds(100))) return;
  last_draw_ = now;
  Draw(done, skipped);
}

void ProgressBar::Message(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  Erase();
  std::fprintf(stderr, "%s\n", line.c_str());
  if (enabled_) Draw(last_done_, last_skipped_);
}

void ProgressBar::Finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  Erase();
  enabled_ = false;
}

void ProgressBar::Draw(int64_t done, int64_t skipped) {
  constexpr int kWidth = 24;
  double fraction = total_ > 0 ? std::clamp(static_cast<double>(done) / total_, 0.0, 1.0) : 1.0;
  int filled = static_cast<int>(fraction * kWidth);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = elapsed > 0 ? done / elapsed : 0;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '.');
  std::string line = label_ + " [" + bar + "] " + std::to_string(static_cast<int>(fraction * 100)) +
                     "%  " + FormatCount(done) + "/" + FormatCount(total_) + "  " +
                     FormatCount(static_cast<int64_t>(rate)) + " " + unit_ + "/s";
  if (rate > 0 && done < total_) line += "  ETA " + FormatDuration((total_ - done) / rate);
  if (skipped > 0) line += "  " + FormatCount(skipped) + " skipped";
  // \r returns to the line start, \033[K clears what a longer previous line left.
  std::fprintf(stderr, "\r%s\033[K", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::Erase() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace h5feed::cli
