# The modules of lib/ and what each may use, read from lib/modules.txt (the one table; the
# include check, scripts/check-module-includes.py, reads it too), and the functions that build
# and link by it:
#
#   h5feed_add_module(<module> <source>...)   the OBJECT library h5feed_<module>
#   h5feed_link_modules(<target> <module>...) <target> linked with those modules' objects and
#                                             the objects of everything they reach
#   h5feed_link_program(<target> <file>)      the same for a program row of the table
#
# Sets H5FEED_MODULES (the modules in table order), H5FEED_MODULE_USES_<module> and
# H5FEED_PROGRAM_USES_<file> (the modules a row lists).

set(H5FEED_MODULE_TABLE ${PROJECT_SOURCE_DIR}/lib/modules.txt)
# An edited table reconfigures the build.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${H5FEED_MODULE_TABLE})

set(H5FEED_MODULES "")
file(STRINGS ${H5FEED_MODULE_TABLE} h5feed_table_lines)
foreach(line IN LISTS h5feed_table_lines)
  string(REGEX REPLACE "#.*$" "" line "${line}")
  string(STRIP "${line}" line)
  if(line STREQUAL "")
    continue()
  endif()
  string(REGEX REPLACE "[ \t]+" ";" fields "${line}")
  list(POP_FRONT fields name)
  if(name MATCHES "^h5feed/" OR name MATCHES "/$" OR name STREQUAL "surface" OR
     name STREQUAL "only")
    # A public header's module, a front end's row, the converters' surface, a header only
    # some modules may include: the include check's business, not the build's.
    continue()
  elseif(name MATCHES "/")
    set(H5FEED_PROGRAM_USES_${name} ${fields})
  else()
    list(APPEND H5FEED_MODULES ${name})
    set(H5FEED_MODULE_USES_${name} ${fields})
  endif()
endforeach()
foreach(module IN LISTS H5FEED_MODULES)
  foreach(used IN LISTS H5FEED_MODULE_USES_${module})
    if(NOT used IN_LIST H5FEED_MODULES)
      message(FATAL_ERROR "lib/modules.txt: ${module} uses '${used}', which has no row")
    endif()
  endforeach()
endforeach()

# h5feed_unity_sources(<target>): <target> compiled as unity sources, batches of 8 of its files
# in one translation unit each (CMake's UNITY_BUILD), when H5FEED_UNITY_BUILD is on (the
# default): the standard library's, HDF5's, TBB's and fmt's headers are then parsed once per
# batch instead of once per file, which more than halves the library's compile time (docs/ci.md).
# A file's names in its anonymous namespace are seen by the next files of its batch, so two
# files of one target never define the same such name.
function(h5feed_unity_sources target)
  if(H5FEED_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
  endif()
endfunction()

# h5feed_add_module(<module> <source>...): the OBJECT library h5feed_<module>, linked with
# basics and the modules its row lists (PUBLIC: their include root and requirements reach
# whatever links this one) and with the warnings. Third-party libraries are the module's own
# CMakeLists.txt's to add; other modules never are.
function(h5feed_add_module module)
  if(NOT module IN_LIST H5FEED_MODULES)
    message(FATAL_ERROR "lib/${module}/ has no row in lib/modules.txt: add one that lists "
                        "the modules it uses")
  endif()
  add_library(h5feed_${module} OBJECT ${ARGN})
  h5feed_unity_sources(h5feed_${module})
  set(uses ${H5FEED_MODULE_USES_${module}})
  list(TRANSFORM uses PREPEND h5feed_)
  target_link_libraries(h5feed_${module} PUBLIC h5feed_basics ${uses} PRIVATE h5feed_warnings)
endfunction()

# h5feed_module_closure(<out-var> <module>...): the modules given, basics, and every module
# they reach through the table.
function(h5feed_module_closure out)
  set(closure basics)
  set(pending ${ARGN})
  list(LENGTH pending left)
  while(left GREATER 0)
    list(POP_FRONT pending module)
    if(NOT module IN_LIST closure)
      list(APPEND closure ${module})
      list(APPEND pending ${H5FEED_MODULE_USES_${module}})
    endif()
    list(LENGTH pending left)
  endwhile()
  set(${out} ${closure} PARENT_SCOPE)
endfunction()

# h5feed_link_modules(<target> <module>...): <target> linked with the objects of the modules
# given and of every module they reach. Each is linked by name: an object library's objects go
# only into what links it directly, never further (so a unit test that linked h5feed_loader
# alone would miss the objects of everything the loader uses).
function(h5feed_link_modules target)
  h5feed_module_closure(modules ${ARGN})
  list(TRANSFORM modules PREPEND h5feed_)
  target_link_libraries(${target} PRIVATE ${modules})
endfunction()

# h5feed_link_program(<target> <file>): <target>, the program built from <file> (relative to
# lib/), linked by the program row of the table that names <file>.
function(h5feed_link_program target file)
  if(NOT DEFINED H5FEED_PROGRAM_USES_${file})
    message(FATAL_ERROR "lib/modules.txt has no program row for ${file}")
  endif()
  h5feed_link_modules(${target} ${H5FEED_PROGRAM_USES_${file}})
endfunction()
