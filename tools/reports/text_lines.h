#pragma once
// The pieces the text renderers of tools/reports/ share: a label column, numbers as people
// read them, and lists cut short for a terminal. Thread-safe: pure functions.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reports/report_view.h"

namespace h5feed::reports {

// "label        value\n": the value at column 14 (a longer label is followed by one space);
// the label alone when the value is empty.
std::string Line(const std::string& label, const std::string& value);

// "4.0 MiB": a byte count of the tree, as ByteSize writes it.
std::string BytesText(const ReportView& bytes);

// `value` with `decimals` digits after the point: Fixed(1.234, 2) == "1.23".
std::string Fixed(double value, int decimals);

// "(10, 8, 6, 3)", and "(5,)" for one dimension, as Python writes a shape: of a list of integers.
std::string ShapeText(const ReportView& dims);

// "3 raw, 5 jpeg": an encodings object (h5feed/encoding_counts.h), every encoding in its order.
std::string EncodingCountsText(const ReportView& encodings);

// `lines` one per line after `indent`, at most `most` of them, then "... N more WHAT (--json
// lists all)" for the rest ("... 10 more bad chunks"; `what` empty: "... 10 more").
std::string CutList(const std::vector<std::string>& lines, size_t most, const std::string& indent,
                    const std::string& what = "");

}  // namespace h5feed::reports
