# Every dependency is a Debian bookworm package (scripts/install-deps.sh installs them).
# Each becomes an imported target here, once, so the rest of the build names targets only.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

# HDF5 C API. Debian's serial build is thread-safe for the C API only (one global lock).
find_package(HDF5 REQUIRED COMPONENTS C)
add_library(h5feed_dep_hdf5 INTERFACE)
target_include_directories(h5feed_dep_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS})
target_link_libraries(h5feed_dep_hdf5 INTERFACE ${HDF5_C_LIBRARIES})
target_compile_definitions(h5feed_dep_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} H5_USE_110_API)

find_package(TBB REQUIRED)
find_package(zstd REQUIRED)
if(TARGET zstd::libzstd_shared)
  set(H5FEED_ZSTD_TARGET zstd::libzstd_shared)
else()
  set(H5FEED_ZSTD_TARGET zstd::libzstd_static)
endif()
find_package(ZLIB REQUIRED)
find_package(CURL REQUIRED)  # remote files (lib/remote): http(s):// and s3://, SigV4 (7.75+)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
find_package(nlohmann_json REQUIRED)  # inspect's --json (tools/reports)
# libjpeg's own API (not TurboJPEG's): decode/ needs jpeg_skip_scanlines and jpeg_crop_scanline
# to decode only the part of a stored JPEG that a crop needs. The target is JPEG::JPEG.
find_package(JPEG REQUIRED)
# Messages and byte sizes (lib/make_error.h, lib/byte_size.h): fmt 9, as gcc 12 has no <format>.
find_package(fmt CONFIG REQUIRED)

if(H5FEED_BUILD_TOOLS OR H5FEED_BUILD_TESTS)
  pkg_check_modules(TURBOJPEG REQUIRED IMPORTED_TARGET libturbojpeg)
  pkg_check_modules(SPNG REQUIRED IMPORTED_TARGET spng)
  pkg_check_modules(WEBP REQUIRED IMPORTED_TARGET libwebp)
  find_package(CLI11 REQUIRED)
  # Debian ships OpenCV's CMake package only with the whole of libopencv-dev; the three
  # modules used here are found directly: core and imgproc (resize) as h5feed_dep_opencv,
  # imgcodecs (BMP/PNM/TIFF) apart, for the module that alone links it (converters/image).
  find_path(OPENCV_INCLUDE_DIR opencv2/imgproc.hpp PATH_SUFFIXES opencv4 REQUIRED)
  add_library(h5feed_dep_opencv INTERFACE)
  foreach(module core imgproc)
    find_library(OPENCV_${module}_LIBRARY opencv_${module} REQUIRED)
    target_link_libraries(h5feed_dep_opencv INTERFACE ${OPENCV_${module}_LIBRARY})
  endforeach()
  target_include_directories(h5feed_dep_opencv SYSTEM INTERFACE ${OPENCV_INCLUDE_DIR})
  find_library(OPENCV_imgcodecs_LIBRARY opencv_imgcodecs REQUIRED)
  add_library(h5feed_dep_opencv_imgcodecs INTERFACE)
  target_link_libraries(h5feed_dep_opencv_imgcodecs INTERFACE ${OPENCV_imgcodecs_LIBRARY} h5feed_dep_opencv)
endif()

if(H5FEED_BUILD_TESTS)
  find_package(doctest REQUIRED)
  find_program(H5FEED_PYTHON /usr/bin/python3 python3 REQUIRED)
  find_program(H5DUMP h5dump)
endif()
