# H5FEED_BUILD_FUZZERS: the libFuzzer targets of tests/fuzz (docs/fuzzing.md, scripts/fuzz.sh),
# built in the AddressSanitizer build (scripts/configure-sanitized.sh asan), whose objects they
# share with the tests: the code they drive is checked by ASan and UBSan from the build's own
# flags, and a fault under a fuzzed input stops the run with a report instead of passing
# silently. libFuzzer comes with clang only (Debian: clang, libclang-rt-14-dev).
#
# H5FEED_FUZZ_COVERAGE: the compile options that give libFuzzer its coverage feedback, given to
# the code the fuzz targets drive: the modules of lib/ in H5FEED_FUZZED_MODULES (lib/CMakeLists.txt),
# converters/ (its folder's add_compile_options) and the targets. The rest (the loader's
# threads, the tests, tools and Python module) is compiled without it: no fuzz target runs it,
# and the instrumentation costs compile time and the tests' run time.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "H5FEED_BUILD_FUZZERS needs clang (libFuzzer): configure with "
                      "scripts/configure-sanitized.sh asan, as scripts/fuzz.sh does")
endif()
if(NOT H5FEED_SANITIZE MATCHES "address")
  message(FATAL_ERROR "H5FEED_BUILD_FUZZERS belongs to the AddressSanitizer build: configure "
                      "with -DH5FEED_SANITIZE=address,undefined (scripts/configure-sanitized.sh asan)")
endif()
set(H5FEED_FUZZ_COVERAGE $<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link>)
set(H5FEED_FUZZED_MODULES codec decode format hdf5 index io)
