// Numbers in words (number_text.h).

#include "number_text.h"

#include <cmath>
#include <cstdio>

#include "sweep_row.h"
#include "units.h"

namespace h5feed::bench {

std::string Fixed(const char* format, double value) {
  if (!Measured(value)) return "-";
  char text[160];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string Grouped(double value) {
  if (!Measured(value)) return "-";
  return cli::FormatCount(static_cast<int64_t>(std::llround(value)));
}

}  // namespace h5feed::bench
