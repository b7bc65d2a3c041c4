#pragma once
// The warning Open gives when the fields it holds whole take more than
// LoaderOptions::held_field_bytes. Beyond that bound array fields are streamed with the image
// chunks (streamed_fields.h), but a bytes or text field is always held: its rows are of any
// length, so no chunk of images bounds what a streamed row would bring into the cache, and a
// batch refers to its rows in the column rather than copying them (batch_fields.h). A caller
// who set held_field_bytes to bound the loader's memory would otherwise find, silently, a
// field of 1 MiB images as bytes held whole: 1.5 GiB for 1,500 rows, once per rank.

#include <cstdint>
#include <optional>
#include <string>

#include "h5feed/loader_options.h"
#include "loader/batch_fields.h"

namespace h5feed::loader {

// The warning for `fields` as read (a held field has its column), against `limit`
// (HeldFieldLimit(options)): the bytes held, the option's value, the fields held past it with
// their bytes, and what to do (leave them out of `fields`); none when what is held fits.
std::optional<std::string> HeldFieldsWarning(const LoaderOptions& options,
                                             const BatchFields& fields, uint64_t limit);

}  // namespace h5feed::loader
