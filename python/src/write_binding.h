#pragma once
// _h5feed.SampleWriter: the native half of h5feed.write (h5feed/_write.py). Made with the
// output, the dataset's length and the options, it starts the library's Convert on a thread of
// its own over a PythonSampleSource (python_sample_source.h), and takes each sample's payload
// from the interpreter's thread with put(), in the stored order its order() gives. The
// conversion's threads decode, resize, encode, compress and write without the GIL; put()
// holds the GIL only to copy the payload in, and waits for room in the bounded queue without
// it, Ctrl-C-aware (interruptible_wait.h). finish() waits for the file and returns the
// conversion's report; cancel() stops the conversion, which removes its temporary file.

#include <pybind11/pybind11.h>

namespace h5feed::python {

void BindWrite(pybind11::module_& module);

}  // namespace h5feed::python
