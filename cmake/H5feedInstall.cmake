# `cmake --install build --prefix P` gives a C++ trainer what it links against (docs/install.md):
#   P/include/h5feed/*.h                       the public headers, and only those
#   P/lib/libh5feed.a                          (or .so with BUILD_SHARED_LIBS=ON)
#   P/lib/cmake/h5feed/                        find_package(h5feed): h5feed::h5feed
#   P/lib/hdf5/plugins/libh5feed_zstd.so       the zstd filter for other HDF5 programs (codec/)
#   P/bin/h5feed                               the command (tools/)
#   P/libexec/h5feed/h5feed-open-probe         the open probe program (lib/probe/)
#   P/libexec/h5feed/h5feed-opencv-codecs.so   OpenCV's BMP/PNM/TIFF decoding, loaded when needed
#                                              (converters/image/)
# Included from lib/CMakeLists.txt once the h5feed target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(H5FEED_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/h5feed)

install(TARGETS h5feed EXPORT h5feedTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/h5feed
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(EXPORT h5feedTargets NAMESPACE h5feed:: DESTINATION ${H5FEED_INSTALL_CMAKE_DIR})

# What h5feedConfig.cmake must find again: the static library's link dependencies.
get_target_property(h5feed_library_type h5feed TYPE)
if(h5feed_library_type STREQUAL "STATIC_LIBRARY")
  set(H5FEED_CONFIG_STATIC ON)
else()
  set(H5FEED_CONFIG_STATIC OFF)
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/h5feedConfig.cmake.in
  ${PROJECT_BINARY_DIR}/h5feedConfig.cmake
  INSTALL_DESTINATION ${H5FEED_INSTALL_CMAKE_DIR}
  PATH_VARS H5FEED_INSTALL_PLUGIN_DIR)
# 0.x: a minor version may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/h5feedConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/h5feedConfig.cmake ${PROJECT_BINARY_DIR}/h5feedConfigVersion.cmake
  DESTINATION ${H5FEED_INSTALL_CMAKE_DIR})
