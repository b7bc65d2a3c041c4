#pragma once
// _h5feed.convert_imagefolder / convert_cifar / convert_npy / rechunk: the conversions of
// `h5feed convert` and `h5feed rechunk`, for scripts (h5feed/_convert.py gives them their
// Python signatures). They run the library's Convert on a thread of their own while the
// calling thread waits without the GIL; Ctrl-C cancels the conversion (its temporary file is
// removed, nothing is left at OUT) and raises KeyboardInterrupt.

#include <pybind11/pybind11.h>

#include "convert_options.h"

namespace h5feed::python {

// The options every conversion takes (the CLI's AddConversionFlags), as the dict
// h5feed/_convert.py builds: chunk, compression, shuffle, seed, threads, overwrite, strict, and
// for images at their own size encoding, smart_threshold and chunk_bytes (memory_limit is the
// caller's to read: the budget it makes must outlive the conversion).
converters::ConvertOptions MakeConvertOptions(const pybind11::dict& common);

void BindConvert(pybind11::module_& module);

}  // namespace h5feed::python
