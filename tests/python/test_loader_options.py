"""h5feed.Loader's arguments come from one table (h5feed/_options.py's LOADER_OPTIONS) bound to
the C++ LoaderOptions fields (python/src/loader_option_table.cc): the signature and defaults
users see, the C++ defaults they stand for, docs/python.md's account of them, and what a wrong
value raises."""
import inspect
import os
import pathlib
import re

import numpy as np
import pytest
import torch

import h5feed
from h5feed import _h5feed, _options

DOCS = pathlib.Path(os.environ.get("H5FEED_SOURCE_DIR", pathlib.Path(__file__).parents[2])) \
    / "docs" / "python.md"


def documented_signature():
    """(name, default text) of each argument in docs/python.md's h5feed.Loader(...) block."""
    text = DOCS.read_text()
    block = re.search(r"```python\nh5feed\.Loader\((.*?)\)\n```", text, re.S).group(1)
    pairs = []
    for part in re.split(r",\s*", " ".join(block.split())):
        name, _, default = part.partition("=")
        pairs.append((name.strip(), default.strip() or None))
    return pairs


def test_the_signature_is_the_table_in_order_with_its_defaults():
    # Loader.__init__ spells the signature out (for help() and editors): it must be the table's.
    parameters = list(inspect.signature(h5feed.Loader).parameters.values())
    assert [p.name for p in parameters] == ["path"] + [o.name for o in _options.LOADER_OPTIONS]
    assert parameters[1].default is inspect.Parameter.empty  # batch_size is required
    for parameter, option in zip(parameters[1:], _options.LOADER_OPTIONS):
        assert parameter.default == option.default, parameter.name
        assert type(parameter.default) is type(option.default), parameter.name


def test_docs_python_md_lists_every_argument_with_its_default():
    documented = documented_signature()
    parameters = inspect.signature(h5feed.Loader).parameters
    assert [name for name, _ in documented] == list(parameters)
    names = {"torch": torch, "IMAGENET_MEAN": _options.IMAGENET_MEAN,
             "IMAGENET_STD": _options.IMAGENET_STD}
    for name, default in documented:
        expected = parameters[name].default
        if default is None:
            assert expected is inspect.Parameter.empty, name
        else:
            assert eval(default, names) == expected, name
    table = DOCS.read_text().split("| argument |", 1)[1].split("\n\n", 1)[0]
    for name in parameters:
        assert f"`{name}`" in table, f"{name} has no row in docs/python.md's argument table"


def test_every_native_keyword_is_set_by_some_argument():
    keywords = _options.native_arguments(batch_size=8)
    assert set(keywords) == set(_h5feed.loader_option_defaults()) | {
        "augment", "several_views", "option_names", "augment_names"}


def test_defaults_are_the_cpp_defaults():
    cpp = _h5feed.loader_option_defaults()
    keywords = _options.native_arguments(batch_size=8)
    for key in ("sampler", "seed", "drop_last_batch", "shard_drop_last", "cache_bytes", "echo",
                "verify_checksums", "skip_corrupt_chunks", "file_locking", "map_file",
                "direct", "open_probe", "open_probe_stall_seconds", "check_label_mixing", "output_type",
                "layout", "threads", "rank", "world_size", "cuda_device", "cuda_stream",
                "images_dataset", "labels_dataset"):
        assert keywords[key] == cpp[key], key
    assert keywords["slots"] == cpp["slots"]
    assert keywords["held_batches"] == 1  # the batch a for loop's variables hold
    # mean and std are float32 in C++, written in Python with the decimals they were given.
    for key in ("mean", "std"):
        assert np.allclose(np.float32(keywords[key]), np.float32(cpp[key]), rtol=0, atol=0)
    assert cpp["sampler"] == "chunks:8" and cpp["file_locking"] == "auto"


def test_augment_defaults_are_the_cpp_defaults():
    [spec] = _options.native_arguments(batch_size=8)["augment"]
    assert spec == _h5feed.augment_option_defaults()


def test_arguments_may_be_given_by_position_in_the_documented_order(small_file):
    loader = h5feed.Loader(small_file, 16, "sequential", 7, None, None, True, dtype=None)
    assert loader.state_dict()["seed"] == 7
    assert len(loader) == 300 // 16  # drop_last
    first = next(iter(loader))[0]
    assert first.shape == (16, 8, 6, 3)


def test_a_wrong_or_missing_argument_is_a_type_error_as_for_any_function(small_file):
    with pytest.raises(TypeError, match="batch_size"):
        h5feed.Loader(small_file)
    with pytest.raises(TypeError, match="shuffle"):
        h5feed.Loader(small_file, 16, shuffle=True)
    with pytest.raises(TypeError, match="multiple values"):
        h5feed.Loader(small_file, 16, batch_size=8)


def test_a_value_of_the_wrong_kind_is_a_type_error_naming_the_argument_and_its_kind(
        small_file):
    with pytest.raises(TypeError, match=r"seed='7': seed takes an int, not a str"):
        h5feed.Loader(small_file, 16, seed="7")
    with pytest.raises(ValueError, match=r"seed=-1 is out of range: seed takes an int from 0 "):
        h5feed.Loader(small_file, 16, seed=-1)
    with pytest.raises(TypeError, match="open_probe_stall_seconds"):
        h5feed.Loader(small_file, 16, open_probe_stall_seconds=None)
    # A bool is an int to Python: batch_size=True would be a batch of 1.
    with pytest.raises(TypeError, match=r"batch_size=True: batch_size takes an int, not a bool"):
        h5feed.Loader(small_file, True)
    with pytest.raises(TypeError, match=r"slots=False: slots takes an int, not a bool"):
        h5feed.Loader(small_file, 16, slots=False)


def test_the_path_is_a_str_or_path_like_and_bytes_name_the_same_file(small_file):
    # str(b"x.h5") is "b'x.h5'": the file was reported missing although it exists.
    loader = h5feed.Loader(os.fsencode(small_file), 16, dtype=None)
    assert loader.dataset["samples"] == 300
    with pytest.raises(TypeError, match=r"path=3: give the file as a str or os.PathLike"):
        h5feed.Loader(3, 16)


def test_sizes_and_constants_of_another_type_are_type_errors_naming_them(small_file):
    # int() took 24.5 as 24, and iterating "22" made a 2 x 2 crop, both without a word.
    for value in ("22", 24.5, (24.0, 24), True):
        with pytest.raises(TypeError, match=r"Augment\(random_resized_crop=...\) takes a whole "):
            h5feed.Augment(random_resized_crop=value)
    with pytest.raises(TypeError, match=r"Augment\(resize=...\) takes a whole number"):
        h5feed.Augment(resize=256.5)
    with pytest.raises(TypeError, match=r"Augment\(random_crop_padding=...\) takes a whole"):
        h5feed.Augment(random_crop_padding="4")
    assert h5feed.Augment(random_resized_crop=(np.int64(6), 4)).random_resized_crop == \
        (np.int64(6), 4)
    with pytest.raises(TypeError, match=r"mean='x': mean is one number or three"):
        h5feed.Loader(small_file, 16, mean="x")
    loader = h5feed.Loader(small_file, 16, mean=np.array([0.5, 0.5, 0.5]), std=torch.ones(3))
    assert next(iter(loader))[0].dtype == torch.float32


def test_set_epoch_refuses_what_is_not_an_epoch_where_it_is_called(small_file):
    # It was kept as given and refused by pybind11 at the next for loop.
    loader = h5feed.Loader(small_file, 16, dtype=None)
    for value in ("1", 1.5, True):
        with pytest.raises(TypeError, match=r"set_epoch\(.*\): an epoch is an int"):
            loader.set_epoch(value)
    # A negative epoch (a counter started at -1) was kept and read an order no epoch has.
    for value in (-1, -2**63):
        with pytest.raises(ValueError, match=r"set_epoch\(-.*\): an epoch is a count from 0"):
            loader.set_epoch(value)
    state = loader.state_dict()
    state["epoch"] = -1
    with pytest.raises(h5feed.InvalidArgumentError, match=r"the state's epoch is -1"):
        loader.load_state_dict(state)
    loader.set_epoch(np.int64(2))
    # A checkpoint taken now resumes at the start of epoch 2 (test_elastic_resume.py).
    assert (loader.state_dict()["epoch"], loader.state_dict()["step"]) == (2, 0)
    assert sum(1 for _ in loader) == len(loader)
    assert loader.state_dict()["epoch"] == 2


def test_a_word_that_is_not_one_is_refused_with_the_words_accepted(small_file):
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r'file locking "sometimes" is not one of: auto, on, off'):
        h5feed.Loader(small_file, 16, file_locking="sometimes")
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"sequential, random, chunks, chunks:W, quasi, quasi:W"):
        h5feed.Loader(small_file, 16, sampler="shuffled")
    loader = h5feed.Loader(small_file, 16, file_locking="OFF", sampler="Sequential", dtype=None)
    assert len(loader) == 19


def test_error_codes_carry_the_library_words():
    assert h5feed.ErrorCode.IO.value == "I/O error"
    assert [code.name for code in h5feed.ErrorCode] == [
        "INVALID_ARGUMENT", "NOT_FOUND", "ALREADY_EXISTS", "IO", "NO_SPACE", "CORRUPT",
        "UNSUPPORTED", "CANCELLED", "CUDA", "INTERNAL"]
    assert repr(h5feed.ErrorCode.NOT_FOUND) == "<ErrorCode.NOT_FOUND: 'not found'>"


def test_remote_options_for_a_local_file_are_said_to_be_ignored(small_file):
    with pytest.warns(UserWarning, match=r"remote\['spill_dir'\] applies to http\(s\):// and "
                                         r"s3:// locations, and .* is a local file: ignored"):
        h5feed.Loader(small_file, 16, remote={"spill_dir": str(small_file.parent)})
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the defaults warn of nothing
        h5feed.Loader(small_file, 16, remote={})
