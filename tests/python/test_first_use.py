"""What a new user of h5feed.Loader meets first (issue 27): a file smaller than one batch, the
DataLoader arguments people bring along, and errors that name the arguments as Python spells
them (max_size, overwrite=True, remote['retries']), not the C++ fields behind them."""
import pathlib
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


@pytest.mark.parametrize("argument, instead", [
    ("num_workers", "threads="), ("pin_memory", "device='cuda'"), ("prefetch_factor", "slots="),
    ("shuffle", "sampler='sequential'"), ("persistent_workers", "leave it out"),
])
def test_a_dataloader_argument_is_a_type_error_saying_what_h5feed_uses(small_file, argument,
                                                                       instead):
    with pytest.raises(TypeError, match=argument) as caught:
        h5feed.Loader(small_file, 16, **{argument: 4})
    assert instead in str(caught.value)


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
