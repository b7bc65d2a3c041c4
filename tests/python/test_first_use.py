"""What a new user of h5feed.Loader meets first (issue 27): a file smaller than one batch, the
DataLoader arguments people bring along, and errors that name the arguments as Python spells
them (max_size, overwrite=True, remote['retries']), not the C++ fields behind them."""
import copy
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch

import h5feed
from conftest import SAMPLES, write_h5feed_file


def test_a_file_smaller_than_one_batch_gives_one_short_batch_as_dataloader(small_file):
    loader = h5feed.Loader(small_file, 512, dtype=None)
    assert len(loader) == 1
    batches = [images.shape[0] for images, _ in loader]
    reference = torch.utils.data.DataLoader(range(SAMPLES), batch_size=512)
    assert batches == [len(batch) for batch in reference] == [SAMPLES]


def test_each_rank_gets_its_padded_share_as_distributed_sampler(small_file):
    sampler = torch.utils.data.DistributedSampler(range(SAMPLES), num_replicas=7, rank=3,
                                                  shuffle=False)
    loader = h5feed.Loader(small_file, 512, rank=3, world_size=7, dtype=None)
    assert [images.shape[0] for images, _ in loader] == [len(sampler)]


def test_drop_last_with_fewer_rows_than_a_batch_is_refused_saying_what_to_change(small_file):
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        h5feed.Loader(small_file, 512, drop_last=True)
    message = str(caught.value)
    assert f"has {SAMPLES} rows, fewer than one batch of 512" in message
    assert f"Lower batch_size to at most {SAMPLES}" in message
    assert "leave out drop_last" in message
    assert "ranks" not in message and "LoaderOptions" not in message


@pytest.mark.parametrize("arguments, message", [
    (dict(slots=0), "slots is 0; it must be in [1, "),
    (dict(echo=2, slots=1), "echo is 2 and slots is 1"),
    (dict(echo=5), "echo is 5 and slots is 4"),
])
def test_echo_beyond_slots_is_refused_at_open_naming_both(small_file, arguments, message):
    # Accepted before, these stalled the first epoch for 5 s and then blamed image tensors the
    # trainer did not hold.
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        h5feed.Loader(small_file, 16, dtype=None, **arguments)
    assert message in str(caught.value)
    assert "LoaderOptions" not in str(caught.value)


def test_echo_equal_to_slots_reads_an_epoch_in_a_for_loop(small_file):
    loader = h5feed.Loader(small_file, 16, echo=2, slots=2, dtype=None)
    assert sum(images.shape[0] for images, _ in loader) == 2 * SAMPLES


@pytest.mark.parametrize("argument, instead", [
    ("num_workers", "threads="), ("pin_memory", "device='cuda'"), ("prefetch_factor", "slots="),
    ("shuffle", "sampler='sequential'"), ("persistent_workers", "leave it out"),
])
def test_a_dataloader_argument_is_a_type_error_saying_what_h5feed_uses(small_file, argument,
                                                                       instead):
    with pytest.raises(TypeError, match=argument) as caught:
        h5feed.Loader(small_file, 16, **{argument: 4})
    assert instead in str(caught.value)


@pytest.mark.parametrize("wrapped", [
    lambda loader: next(iter(torch.utils.data.DataLoader(loader))),
    lambda loader: next(iter(torch.utils.data.DataLoader(loader, batch_size=None))),
    lambda loader: loader[0],
])
def test_a_loader_wrapped_in_a_dataloader_or_indexed_says_to_iterate_it(small_file, wrapped):
    with pytest.raises(TypeError, match=r"not a map-style Dataset") as caught:
        wrapped(h5feed.Loader(small_file, 16, dtype=None))
    assert "for images, labels in loader" in str(caught.value)


@pytest.mark.parametrize("copied", [pickle.dumps, copy.copy, copy.deepcopy])
def test_a_loader_is_not_pickled_or_copied_and_says_what_to_do(small_file, copied):
    # A shallow copy used to share the native loader: two loops took each other's batches.
    loader = h5feed.Loader(small_file, 16, dtype=None)
    with pytest.raises(TypeError, match=r"cannot be pickled or copied") as caught:
        copied(loader)
    assert "state_dict()" in str(caught.value)


def test_a_mean_on_the_0_255_scale_is_refused_saying_the_scale(small_file):
    # mmcv's and many configs' values: accepted before, they flattened every image to about -2.
    with pytest.raises(h5feed.InvalidArgumentError, match=r"mean 123\.675, outside 0\.\.1") as caught:
        h5feed.Loader(small_file, 16, mean=(123.675, 116.28, 103.53), std=(58.395, 57.12, 57.375))
    assert "divide values on the 0..255 scale by 255" in str(caught.value)
    images, _ = next(iter(h5feed.Loader(small_file, 16, mean=(123.675 / 255, 116.28 / 255,
                                                            103.53 / 255),
                                        std=(58.395 / 255, 57.12 / 255, 57.375 / 255))))
    assert images.abs().max() < 2.7 and images.std() > 0.5  # the pixels spread, not flattened


def test_library_errors_name_the_python_arguments(small_file):
    with pytest.raises(h5feed.InvalidArgumentError, match=r"remote\['retries'\] is -1"):
        h5feed.Loader(small_file, 16, remote={"retries": -1})
    with pytest.raises(h5feed.InvalidArgumentError, match=r"^world_size is 0"):
        h5feed.Loader(small_file, 16, rank=0, world_size=0)
    augment = h5feed.Augment(random_resized_crop=8, max_size=4)
    with pytest.raises(h5feed.InvalidArgumentError, match=r"Augment\.max_size is 4x4") as caught:
        h5feed.Loader(small_file, 16, augment=augment)
    assert "max_output" not in str(caught.value)
    views = [h5feed.Augment(random_resized_crop=4), h5feed.Augment(random_resized_crop=4,
                                                                   scale=(0.9, 0.1))]
    with pytest.raises(h5feed.InvalidArgumentError, match=r"views\[1\]\.scale is"):
        h5feed.Loader(small_file, 16, views=views)


def test_an_existing_output_names_overwrite(tmp_path):
    path = write_h5feed_file(tmp_path)
    images = tmp_path / "images.npy"
    np.save(images, np.zeros((4, 2, 2, 3), np.uint8))
    with pytest.raises(h5feed.AlreadyExistsError, match=r"overwrite=True") as caught:
        h5feed.convert_npy(images, path)
    assert "--force" not in str(caught.value)


@pytest.mark.parametrize("keyword", ["random_resized_crop", "center_crop", "resize", "max_size"])
def test_a_zero_size_in_augment_is_refused_naming_the_keyword(keyword):
    with pytest.raises(ValueError, match=rf"Augment\({keyword}=0\)"):
        h5feed.Augment(**{keyword: 0})
    with pytest.raises(ValueError, match=keyword):
        h5feed.Augment(**{keyword: (0, 4)} if keyword != "resize" else {keyword: -1})


def test_dir_lists_loader_and_augment_before_their_first_use():
    names = dir(h5feed)
    assert "Loader" in names and "Augment" in names and "convert_npy" in names
    # The public API only: no module the package imports, no private name.
    assert "importlib" not in names and "_NEEDS_TORCH" not in names
    assert [n for n in names if n.startswith("_") and not n.startswith("__")] == []


def test_the_default_mean_and_std_the_signature_names_are_importable():
    # docs/python.md writes Loader(..., mean=IMAGENET_MEAN, std=IMAGENET_STD).
    from h5feed import IMAGENET_MEAN, IMAGENET_STD
    assert IMAGENET_MEAN == (0.485, 0.456, 0.406) and IMAGENET_STD == (0.229, 0.224, 0.225)
    assert "IMAGENET_MEAN" in dir(h5feed)


def test_help_of_loader_explains_the_samplers_and_the_memory_arguments():
    text = h5feed.Loader.__doc__
    for words in ("sequential", "random", "chunks:W", "quasi:W", "cache_bytes", "echo",
                  "slots"):
        assert words in text, words


@pytest.mark.parametrize("script", ["train_cifar.py", "train_imagenet.py", "train_contrastive.py",
                                    "train_multilabel.py"])
def test_the_examples_help_shows_each_default(script):
    examples = pathlib.Path(__file__).resolve().parents[2] / "examples"
    result = subprocess.run([sys.executable, str(examples / script), "--help"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "(default:" in result.stdout


@pytest.fixture(scope="module")
def own_size_file(tmp_path_factory):
    """A file of 6 images at their own sizes (format version 2)."""
    from PIL import Image
    root = tmp_path_factory.mktemp("own_size_folder")
    (root / "class").mkdir()
    for i, (height, width) in enumerate([(20, 30), (28, 18)] * 3):
        Image.new("RGB", (width, height), (40 * i, 90, 10)).save(root / "class" / f"{i}.png")
    out = root.parent / "own_size.h5"
    h5feed.convert_imagefolder(root, out)
    return out


def test_loader_messages_name_python_arguments_and_methods(small_file, own_size_file):
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        h5feed.Loader(own_size_file, 4, dtype=None)
    message = str(caught.value)
    assert "dtype" in message and "Augment.random_resized_crop" in message
    assert "Augment.resize" in message and "Augment.center_crop" in message
    for cpp in ("normalize", "resize_shorter", "output.augment", "LoaderOptions"):
        assert cpp not in message, cpp
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        h5feed.Loader(own_size_file, 4, augment=h5feed.Augment(resize=8))
    assert "Augment.resize" in str(caught.value) and "resize_shorter" not in str(caught.value)
    state = h5feed.Loader(small_file, 32).state_dict()
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        h5feed.Loader(small_file, 16).load_state_dict(state)
    assert str(caught.value).startswith("load_state_dict: ")
    assert "set_epoch" in str(caught.value) and "SetEpoch" not in str(caught.value)
    loader = h5feed.Loader(small_file, 32, augment=h5feed.Augment(random_resized_crop=4))
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        loader.set_output_size(6)
    message = str(caught.value)
    assert message.startswith("set_output_size: ") and "Augment.max_size" in message
    assert "SetOutputSize" not in message and "max_output" not in message


def test_options_for_normalized_batches_with_dtype_none_are_named_as_python_spells_them(
        small_file):
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        h5feed.Loader(small_file, 16, dtype=None, memory_format=torch.channels_last)
    message = str(caught.value)
    assert "memory_format" in message and "dtype" in message
    assert "LoaderOptions" not in message and "output" not in message


@pytest.mark.parametrize("arguments, python, command", [
    (dict(size=0), "size", "--size"),
    (dict(max_side=-1), "max_side", "--max-side"),
    (dict(max_pixels=-1), "max_pixels", "--max-pixels"),
    (dict(chunk_bytes=2**40), "chunk_bytes", "--chunk-bytes"),
    (dict(encoding="smart", smart_threshold=-1), "smart_threshold", "--smart-threshold"),
])
def test_conversion_errors_name_the_python_arguments(own_size_file, tmp_path, arguments, python,
                                                     command):
    folder = own_size_file.parent / "own_size_folder0"
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        h5feed.convert_imagefolder(folder, tmp_path / "out.h5", **arguments)
    assert python in str(caught.value) and command not in str(caught.value)


def test_a_negative_seed_is_a_value_error_naming_seed(tmp_path):
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    with pytest.raises(ValueError, match=r"seed=-1") as caught:
        h5feed.convert_npy(tmp_path / "images.npy", tmp_path / "out.h5", seed=-1)
    assert "Unable to cast" not in str(caught.value)


def test_convert_npy_in_the_commands_order_never_touches_the_labels(tmp_path):
    # The command's order is IMAGES [LABELS] OUT; Python's labels are a keyword.
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    np.save(tmp_path / "labels.npy", np.arange(4))
    before = (tmp_path / "labels.npy").read_bytes()
    with pytest.raises(TypeError):
        h5feed.convert_npy(tmp_path / "images.npy", tmp_path / "labels.npy", tmp_path / "out.h5")
    with pytest.raises(h5feed.InvalidArgumentError, match=r"labels\.npy ends in \.npy"):
        h5feed.convert_npy(tmp_path / "images.npy", tmp_path / "labels.npy", overwrite=True)
    assert (tmp_path / "labels.npy").read_bytes() == before
    assert not (tmp_path / "out.h5").exists()


def test_a_missing_path_is_named_by_its_role(tmp_path):
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    with pytest.raises(h5feed.NotFoundError, match=r"^labels file .*small\.h5 does not exist"):
        h5feed.convert_npy(tmp_path / "images.npy", tmp_path / "out.h5",
                           labels=tmp_path / "small.h5")
    with pytest.raises(h5feed.NotFoundError, match=r"^images file .*gone\.npy does not exist"):
        h5feed.convert_npy(tmp_path / "gone.npy", tmp_path / "out.h5")
    with pytest.raises(h5feed.NotFoundError, match=r"^output "):
        h5feed.convert_npy(tmp_path / "images.npy", tmp_path / "no" / "out.h5")


def test_a_value_of_the_wrong_kind_or_range_says_what_the_argument_takes(small_file):
    with pytest.raises(ValueError) as caught:
        h5feed.Loader(small_file, 2**70)
    assert "batch_size=1180591620717411303424" in str(caught.value)
    assert "is out of range: batch_size takes an int from" in str(caught.value)
    assert "to 9223372036854775807" in str(caught.value)
    assert "default" not in str(caught.value)  # batch_size has none
    with pytest.raises(TypeError) as caught:
        h5feed.Loader(small_file, "64")
    assert "batch_size='64': batch_size takes an int, not a str" in str(caught.value)
    with pytest.raises(TypeError, match=r"drop_last=.*drop_last takes True or False"):
        h5feed.Loader(small_file, 16, drop_last="yes")


def test_the_largest_batch_size_reads_the_whole_file_as_one_batch(small_file):
    loader = h5feed.Loader(small_file, 2**63 - 1, dtype=None)
    assert [images.shape[0] for images, _ in loader] == [SAMPLES]


@pytest.mark.parametrize("arguments, message", [
    (dict(chunk=0), "chunk=0: give the images per chunk, at least 1, or leave chunk out (None)"),
    (dict(threads=0), "threads=0: give a number of threads, at least 1, or None for every core"),
    (dict(threads=-1), "threads=-1: give a number of threads"),
])
def test_a_zero_or_negative_count_is_refused_where_none_means_the_default(tmp_path, small_file,
                                                                          arguments, message):
    # As --chunk 0 is on the command line; None is Python's spelling of the default.
    np.save(tmp_path / "images.npy", np.zeros((4, 2, 2, 3), np.uint8))
    with pytest.raises(ValueError) as caught:
        h5feed.convert_npy(tmp_path / "images.npy", tmp_path / "out.h5", **arguments)
    assert message in str(caught.value)
    if "threads" in arguments:
        with pytest.raises(ValueError, match=message.split(":")[0]):
            h5feed.Loader(small_file, 16, **arguments)


DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("converter", ["convert_imagefolder", "convert_cifar", "convert_npy",
                                       "rechunk"])
def test_docs_python_md_names_every_argument_of_the_converters(converter):
    import inspect
    # The sentence that lists the options (the report's keys, after it, share some names).
    text = (DOCS / "python.md").read_text()
    section = text.split("The options are the command's:", 1)[1].split("The report dict", 1)[0]
    parameters = list(inspect.signature(getattr(h5feed, converter)).parameters)[2:]
    missing = [name for name in parameters if f"`{name}`" not in section]
    assert missing == [], f"docs/python.md's Conversions do not name {missing}"


def test_convert_imagefolders_docstring_says_what_size_none_does_now():
    doc = " ".join(h5feed.convert_imagefolder.__doc__.split())
    assert "must already share one size" not in doc
    assert "None: each image at its own size" in doc


def test_install_md_says_how_to_build_for_installation_only():
    text = (DOCS / "install.md").read_text()
    top = (DOCS.parent / "CMakeLists.txt").read_text()
    for option in ("H5FEED_BUILD_TESTS", "H5FEED_BUILD_BENCH", "H5FEED_BUILD_EXAMPLES"):
        assert f"-D{option}=OFF" in text, option
        assert f"option({option} " in top, option
