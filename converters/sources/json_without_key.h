#pragma once
// A JSON file parsed into a value without the members of one name, at any depth: COCO's
// instances JSON without its "segmentation" polygons and RLE masks, which are most of its
// bytes (instances_train2017.json: 448 MB) and which boxes do not need.
//
// Why not nlohmann's parse with a callback that drops them: that parser builds every value,
// polygons' numbers included, and calls the callback with each, which made reading COCO's JSON
// many times slower than parsing it whole; this SAX handler builds nothing for a dropped
// member, and reads the file's bytes whole (one read) rather than through a stream's character
// calls.
//
// Thread-safety: a pure function of the file's bytes.

#include <string>

#include <nlohmann/json.hpp>

namespace h5feed::converters {

// Parses the file `path` (a UTF-8 byte order mark at its start is allowed), leaving out every
// object member named `dropped` and its value. Throws Error(kNotFound) for a file that does not
// exist, kIo for one that cannot be read, kInvalidArgument for one that is not a regular file
// (InputFile), and kCorrupt naming the file, with the line and column where it stops, for
// text that is not JSON.
nlohmann::json ParseJsonWithout(const std::string& path, const std::string& dropped);

}  // namespace h5feed::converters
