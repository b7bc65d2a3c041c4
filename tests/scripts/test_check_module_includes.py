"""scripts/check-module-includes.py on copies of lib/, tests/lib/ and the front ends
(converters/, tools/, python/) with one rule broken each:
it must fail, naming the file, the line and the rule; and pass on the untouched copy."""

import pathlib
import shutil
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = SOURCE / "scripts" / "check-module-includes.py"


@pytest.fixture
def tree(tmp_path):
    shutil.copytree(SOURCE / "lib", tmp_path / "lib")
    shutil.copytree(SOURCE / "tests" / "lib", tmp_path / "tests" / "lib")
    for front_end in ("converters", "tools", "python"):
        shutil.copytree(SOURCE / front_end, tmp_path / front_end,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def check(tree):
    run = subprocess.run([sys.executable, str(SCRIPT), "--root", str(tree)],
                         capture_output=True, text=True, timeout=60)
    return run.returncode, run.stdout + run.stderr


def add_line(path, line, at=None):
    lines = path.read_text().split("\n")
    lines.insert(len(lines) if at is None else at, line)
    path.write_text("\n".join(lines))


def test_the_untouched_tree_passes(tree):
    status, output = check(tree)
    assert status == 0, output
    assert "every include follows lib/modules.txt" in output


def test_a_module_including_a_module_its_row_lacks_fails_with_file_line_and_rule(tree):
    add_line(tree / "lib" / "codec" / "checksum.cc", '#include "loader/cache_budget.h"', at=2)
    status, output = check(tree)
    assert status == 1
    assert ('lib/codec/checksum.cc:3: #include "loader/cache_budget.h" uses loader, but codec '
            "may use only codec, basics") in output


def test_a_module_reached_only_through_another_must_still_be_listed(tree):
    # The loader reaches format through index, but its row does not list format.
    add_line(tree / "lib" / "loader" / "cache_budget.cc", '#include "format/schema.h"', at=1)
    status, output = check(tree)
    assert status == 1
    assert 'lib/loader/cache_budget.cc:2: #include "format/schema.h" uses format' in output


def test_a_public_header_follows_the_rule_of_the_module_it_belongs_to(tree):
    add_line(tree / "lib" / "include" / "h5feed" / "image_shape.h", '#include "h5feed/loader.h"',
             at=2)
    status, output = check(tree)
    assert status == 1
    assert ('lib/include/h5feed/image_shape.h:3: #include "h5feed/loader.h" uses loader, but '
            "basics (its header's row) may use only") in output


def test_a_public_header_without_a_row_fails(tree):
    (tree / "lib" / "include" / "h5feed" / "shiny.h").write_text("#pragma once\n")
    status, output = check(tree)
    assert status == 1
    assert "lib/include/h5feed/shiny.h: public header h5feed/shiny.h has no row" in output


def test_a_folder_of_lib_without_a_row_fails(tree):
    (tree / "lib" / "telemetry").mkdir()
    (tree / "lib" / "telemetry" / "counters.cc").write_text('#include "io/os_error.h"\n')
    status, output = check(tree)
    assert status == 1
    assert "lib/telemetry/: a module folder with no row in lib/modules.txt" in output


def test_a_cycle_in_the_table_fails(tree):
    table = tree / "lib" / "modules.txt"
    text = table.read_text()
    assert "\nsampler      transform\n" in text
    table.write_text(text.replace("\nsampler      transform\n", "\nsampler      transform cache\n"))
    status, output = check(tree)
    assert status == 1
    assert "the table has a cycle: sampler -> cache -> sampler" in output


def test_a_unit_test_may_include_what_its_module_reaches_and_nothing_more(tree):
    loader_test = tree / "tests" / "lib" / "loader" / "cache_budget_test.cpp"
    add_line(loader_test, '#include "format/schema.h"', at=1)  # reached through index
    status, output = check(tree)
    assert status == 0, output
    cache_test = tree / "tests" / "lib" / "cache" / "eviction_test.cpp"
    add_line(cache_test, '#include "lib/pipeline/synthetic_dataset.h"', at=1)
    status, output = check(tree)
    assert status == 1
    assert ('tests/lib/cache/eviction_test.cpp:2: #include "lib/pipeline/synthetic_dataset.h" '
            "uses pipeline, but a test of cache is linked with") in output


def test_modules_and_tests_linked_by_hand_fail(tree):
    add_line(tree / "lib" / "cache" / "CMakeLists.txt",
             "target_link_libraries(h5feed_cache PRIVATE h5feed_index)")
    add_line(tree / "tests" / "lib" / "io" / "CMakeLists.txt",
             "target_link_libraries(posix_file_test PRIVATE h5feed::h5feed)")
    status, output = check(tree)
    assert status == 1
    assert "lib/cache/CMakeLists.txt:" in output and "names h5feed_index" in output
    assert "tests/lib/io/CMakeLists.txt:" in output and "links h5feed::h5feed" in output


def test_internal_code_outside_its_module_namespace_fails(tree):
    header = tree / "lib" / "memory" / "slot_pool.h"
    text = header.read_text()
    assert "namespace h5feed::memory {" in text
    header.write_text(text.replace("namespace h5feed::memory {", "namespace h5feed::pipeline {"))
    status, output = check(tree)
    assert status == 1
    assert ("lib/memory/slot_pool.h:" in output
            and "namespace h5feed::pipeline in lib/memory/: internal code of memory lives in "
                "h5feed::memory" in output)


def test_the_command_including_an_internal_header_fails(tree):
    add_line(tree / "tools" / "inspect_command.cc", '#include "summary/file_summary.h"', at=2)
    status, output = check(tree)
    assert status == 1
    assert ('tools/inspect_command.cc:3: #include "summary/file_summary.h" uses summary, but '
            "tools/ may use only the public headers and") in output


def test_python_including_converters_off_their_surface_fails(tree):
    add_line(tree / "python" / "src" / "module.cc", '#include "part_set.h"', at=1)
    status, output = check(tree)
    assert status == 1
    assert ('python/src/module.cc:2: #include "part_set.h" is of the converters but not on '
            "their surface") in output


def test_a_converter_including_a_module_its_row_lacks_fails(tree):
    add_line(tree / "converters" / "sources" / "hdf5_source.cc", '#include "cache/eviction.h"',
             at=1)
    status, output = check(tree)
    assert status == 1
    assert ('converters/sources/hdf5_source.cc:2: #include "cache/eviction.h" uses cache, but '
            "converters/sources/ may use only") in output


def test_a_chunk_reader_outside_the_chunk_source_fails_by_its_only_row(tree):
    # The loader's row lists index, but every chunk is read through source/ (an `only` row).
    add_line(tree / "lib" / "loader" / "loader.cc", '#include "index/chunk_reader.h"', at=4)
    add_line(tree / "tools" / "bench" / "ceilings.cc", '#include "index/chunk_reader.h"', at=2)
    status, output = check(tree)
    assert status == 1
    assert ('lib/loader/loader.cc:5: #include "index/chunk_reader.h": only source may include '
            "index/chunk_reader.h") in output
    assert 'tools/bench/ceilings.cc:3: #include "index/chunk_reader.h": only source' in output


def test_an_hdf5_call_outside_lib_hdf5_fails_naming_the_call(tree):
    add_line(tree / "lib" / "index" / "dataset_index.cc", "static int x = H5open();", at=30)
    add_line(tree / "converters" / "merge.cc", "// H5Fflush(file) in a comment is no call", at=1)
    status, output = check(tree)
    assert status == 1
    assert "lib/index/dataset_index.cc:31: calls H5open: HDF5's C API is called in lib/hdf5/" \
        in output
    assert "converters/merge.cc" not in output
