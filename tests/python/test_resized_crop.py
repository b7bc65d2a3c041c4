"""The ImageNet recipe from Python (issue 19): h5feed.Augment's random resized crop and
validation resize against torchvision 0.14's transforms on the same h5py-read images, runs that
repeat exactly (threads, runs, a resume) and differ where they should (epochs, ranks, views),
several views per sample with their labels, and the output size changed between epochs."""
import numpy as np
import pytest
import torch
import torchvision.transforms.functional as F

import h5feed
from conftest import read_rows, write_h5feed_file

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
SHAPE = (40, 56, 3)  # non-square, as photos are


@pytest.fixture(scope="module")
def photo_file(tmp_path_factory):
    return write_h5feed_file(tmp_path_factory.mktemp("photos"), samples=96, shape=SHAPE, seed=11)


def torchvision_normalized(uint8_nhwc, size=None, resize=None, center_crop=None, antialias=True):
    """torchvision's tensor transforms on uint8 CHW images, then ConvertImageDtype and
    Normalize: the reference pipeline a DataLoader trainer runs."""
    out = []
    for image in torch.from_numpy(uint8_nhwc).permute(0, 3, 1, 2):
        if size is not None:
            image = F.resize(image, list(size), antialias=antialias)
        if resize is not None:
            image = F.resize(image, [resize], antialias=antialias)
        if center_crop is not None:
            image = F.center_crop(image, list(center_crop))
        out.append(F.normalize(F.convert_image_dtype(image, torch.float32), MEAN, STD))
    return torch.stack(out)


def first_batch(path, **options):
    return next(iter(h5feed.Loader(path, 32, mean=MEAN, std=STD, with_indices=True, **options)))


def assert_within_one_level(images, expected):
    """Equal up to one uint8 level of the resize, which torchvision may round the other way
    where a value lies within float error of .5 (one level is 1 / (255 std)); otherwise equal
    up to the float rounding of normalize's two ways of computing (x / 255 - mean) / std."""
    assert images.shape == expected.shape
    level = 1 / (255 * torch.tensor(STD).view(1, 3, 1, 1))
    difference = (images - expected).abs()
    assert torch.all(difference <= level * 1.001)
    assert (difference > level / 2).float().mean() < 0.01


@pytest.mark.parametrize("antialias", [True, False])
def test_the_validation_transform_is_torchvisions_resize_then_center_crop(photo_file, antialias):
    images, _, indices = first_batch(
        photo_file, augment=h5feed.Augment(resize=48, center_crop=(44, 40), antialias=antialias))
    raw, _ = read_rows(photo_file, indices.numpy())
    assert_within_one_level(images, torchvision_normalized(
        raw, resize=48, center_crop=(44, 40), antialias=antialias))


@pytest.mark.parametrize("antialias", [True, False])
def test_a_resized_crop_of_the_whole_image_is_torchvisions_resize(photo_file, antialias):
    # scale (1, 1) and the image's own aspect ratio: every box is the whole image.
    whole = h5feed.Augment(random_resized_crop=(24, 30), scale=(1, 1),
                           ratio=(SHAPE[1] / SHAPE[0],) * 2, antialias=antialias)
    images, _, indices = first_batch(photo_file, augment=whole)
    raw, _ = read_rows(photo_file, indices.numpy())
    assert_within_one_level(images, torchvision_normalized(raw, size=(24, 30),
                                                           antialias=antialias))


def epoch(path, epoch_number=0, **options):
    loader = h5feed.Loader(path, 16, mean=MEAN, std=STD, with_indices=True, seed=4, **options)
    loader.set_epoch(epoch_number)
    def keep(images):  # a copy of what outlives the step
        return tuple(v.clone() for v in images) if isinstance(images, tuple) else images.clone()

    return [(keep(images), labels.clone(), indices.clone()) for images, labels, indices in loader]


RRC = h5feed.Augment(random_resized_crop=24, random_flip=True)


def test_crops_repeat_on_any_thread_count_and_run(photo_file):
    one = epoch(photo_file, threads=1, augment=RRC)
    two = epoch(photo_file, threads=2, augment=RRC)
    assert len(one) == len(two) == 6
    for a, b in zip(one, two):
        assert torch.equal(a[2], b[2]) and torch.equal(a[0], b[0])
    # Another epoch: the same rows (a different order) cropped differently.
    other = {int(i): image for images, _, indices in epoch(photo_file, 1, augment=RRC)
             for image, i in zip(images, indices)}
    same = sum(torch.equal(image, other[int(i)]) for images, _, indices in one
               for image, i in zip(images, indices))
    assert same == 0


def test_a_resumed_run_crops_as_the_uninterrupted_one(photo_file):
    full = epoch(photo_file, augment=RRC)
    loader = h5feed.Loader(photo_file, 16, mean=MEAN, std=STD, with_indices=True, seed=4,
                           augment=RRC)
    iterator = iter(loader)
    for _ in range(2):
        next(iterator)
    state = loader.state_dict()
    resumed = h5feed.Loader(photo_file, 16, mean=MEAN, std=STD, with_indices=True, seed=4,
                            augment=RRC)
    resumed.load_state_dict(state)
    rest = [(images.clone(), indices.clone()) for images, _, indices in resumed]
    assert len(rest) == len(full) - 2
    for (images, indices), expected in zip(rest, full[2:]):
        assert torch.equal(indices, expected[2]) and torch.equal(images, expected[0])


def test_ranks_crop_their_own_rows(photo_file):
    ranks = [epoch(photo_file, rank=r, world_size=2, augment=RRC) for r in (0, 1)]
    rows = [set(torch.cat([b[2] for b in batches]).tolist()) for batches in ranks]
    assert not rows[0] & rows[1]


VIEWS = [h5feed.Augment(random_resized_crop=24, scale=(0.4, 1), random_flip=True, count=2),
         h5feed.Augment(random_resized_crop=12, scale=(0.05, 0.4), count=3)]


def test_views_come_as_a_tuple_with_the_labels_of_their_rows(photo_file):
    batches = epoch(photo_file, views=VIEWS)
    _, stored_labels = read_rows(photo_file, np.arange(96))
    seen = []
    for views, labels, indices in batches:
        assert [tuple(v.shape) for v in views] == [(16, 3, 24, 24)] * 2 + [(16, 3, 12, 12)] * 3
        assert torch.equal(labels, torch.from_numpy(stored_labels[indices.numpy()]))
        for sample in range(16):  # every view of a sample is its own crop
            assert not torch.equal(views[0][sample], views[1][sample])
            assert not torch.equal(views[2][sample], views[3][sample])
        seen += indices.tolist()
    assert sorted(seen) == list(range(96))


def test_views_compose_with_echo_and_sharding(photo_file):
    echoed = epoch(photo_file, views=VIEWS, echo=2, slots=4, sampler="sequential")
    assert len(echoed) == 12
    for copy0, copy1 in zip(echoed[::2], echoed[1::2]):
        assert sorted(copy0[2].tolist()) == sorted(copy1[2].tolist())
        first = {int(i): v for v, i in zip(copy0[0][0], copy0[2])}
        # An echo copy draws its own crops.
        assert all(not torch.equal(v, first[int(i)]) for v, i in zip(copy1[0][0], copy1[2]))
    shards = [epoch(photo_file, views=VIEWS, rank=r, world_size=2) for r in (0, 1)]
    assert [sum(len(b[2]) for b in s) for s in shards] == [48, 48]


def test_the_output_size_changes_between_epochs_up_to_its_maximum(photo_file):
    loader = h5feed.Loader(photo_file, 16, mean=MEAN, std=STD, with_indices=True,
                           augment=h5feed.Augment(random_resized_crop=16, max_size=32))
    loader.set_epoch(0)
    assert {tuple(images.shape[2:]) for images, _, _ in loader} == {(16, 16)}
    loader.set_output_size((24, 32))
    loader.set_epoch(1)
    assert {tuple(images.shape[2:]) for images, _, _ in loader} == {(24, 32)}
    # The message names the call that asked, not the options given at open as if they were wrong.
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"set_output_size: 40x40 is beyond .*Augment.max_size is 32x32"):
        loader.set_output_size(40)
    # Sizes of another type are refused naming the call, not unpacked or truncated.
    with pytest.raises(TypeError, match=r"set_output_size\(size\) takes a whole number"):
        loader.set_output_size("24")
    with pytest.raises(TypeError, match=r"set_output_size\(size\) takes a whole number"):
        loader.set_output_size((24.5, 32))
