"""Reading files of images at their own size (issue 26) through `import h5feed`: photos of
different aspect ratios converted raw and as JPEG, read with the validation transform against
torchvision on the stored images (read with h5py the way docs/format.md documents), the
training crop reproducible across threads and resumed runs and split across ranks, read over
HTTP and with O_DIRECT as through the page cache, several views of each sample, a size changed
between epochs, a clear refusal without a crop, and a damaged JPEG caught and named."""
import os
import shutil
import sys

import h5py
import numpy as np
import pytest
import torch
import torchvision.transforms.functional as F
from PIL import Image

import h5feed
from conftest import stored_image

sys.path.insert(0, os.path.join(os.environ["H5FEED_SOURCE_DIR"], "tests", "support"))
from http_servers import Nginx  # noqa: E402

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
# (height, width): landscape, portrait, square, panorama, and one above the 160 px cap.
SIZES = [(60, 80), (80, 60), (70, 70), (54, 96), (90, 120), (120, 90), (240, 320)]


def torchvision_validation(stored, shorter, crop):
    """torchvision's Resize(shorter) + CenterCrop(crop) + Normalize of a stored H x W x 3 image."""
    image = torch.from_numpy(stored).permute(2, 0, 1)
    resized = F.center_crop(F.resize(image, [shorter], antialias=True), list(crop))
    return F.normalize(F.convert_image_dtype(resized, torch.float32), MEAN, STD)


def photo(rng, height, width):
    """A smooth photo-like picture with some texture (JPEG compresses it as it does photos)."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    phase = rng.uniform(0, 6, 3)
    channels = [128 + 80 * np.sin(0.05 * x + phase[c]) * np.cos(0.04 * y - phase[c])
                for c in range(3)]
    image = np.stack(channels, axis=-1) + rng.normal(0, 6, (height, width, 3))
    return np.clip(image, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("own_size_photos")
    rng = np.random.default_rng(26)
    for i in range(48):
        height, width = SIZES[i % len(SIZES)]
        (root / f"class{i % 3}").mkdir(exist_ok=True)
        Image.fromarray(photo(rng, height, width)).save(root / f"class{i % 3}" / f"{i:03d}.png")
    return root


@pytest.fixture(scope="module", params=["raw", "jpeg:95"])
def own_size_file(folder, tmp_path_factory, request):
    out = tmp_path_factory.mktemp("own_size") / "photos.h5"
    h5feed.convert_imagefolder(folder, out, max_side=160, encoding=request.param,
                               chunk_bytes=64 * 1024)
    return out, request.param


def test_the_file_holds_each_image_at_its_own_size(own_size_file):
    path, encoding = own_size_file
    with h5py.File(path, "r") as f:
        assert f.attrs["h5feed_format_version"] == 2
        shapes = {tuple(s[:2]) for s in f["image_shapes"][:]}
        # The 240 x 320 photos were shrunk to a longer side of 160, aspect kept.
        assert shapes == {s for s in SIZES if max(s) <= 160} | {(120, 160)}
        assert f["images"].chunks[0] == f.attrs["chunk_bytes"]
        assert len({int(o) // int(f.attrs["chunk_bytes"]) for o in f["image_offsets"][:]}) > 1


def test_the_validation_transform_is_torchvisions_on_each_stored_image(own_size_file):
    path, encoding = own_size_file
    with h5py.File(path, "r") as f:  # closed before the loader opens the file
        stored_images = [stored_image(f, n) for n in range(len(f["labels"]))]
    augment = h5feed.Augment(resize=48, center_crop=(40, 40))
    loader = h5feed.Loader(path, 16, mean=MEAN, std=STD, with_indices=True, augment=augment,
                           sampler="sequential")
    level = 1 / (255 * torch.tensor(STD).view(3, 1, 1))
    for images, _, indices in loader:
        assert images.shape == (len(indices), 3, 40, 40)
        for image, n in zip(images, indices.tolist()):
            expected = torchvision_validation(stored_images[n], 48, (40, 40))
            difference = (image - expected).abs()
            if encoding == "raw":  # the stored pixels, resized as torchvision does
                assert torch.all(difference <= level * 1.001)
            else:  # shrinking by 2 or more decodes at half scale in the DCT
                assert (difference / level).mean() < 3


def run(path, threads=None, epoch=1, rank=0, world_size=1, state=None, steps=None, **extra):
    augment = h5feed.Augment(random_resized_crop=32, random_flip=True)
    if threads is not None:
        extra["threads"] = threads
    loader = h5feed.Loader(path, 8, mean=MEAN, std=STD, with_indices=True, augment=augment,
                           seed=5, rank=rank, world_size=world_size, **extra)
    if state is not None:
        loader.load_state_dict(state)
    else:
        loader.set_epoch(epoch)
    out = []
    for images, labels, indices in loader:
        out.append((images.clone(), indices.clone()))
        if steps is not None and len(out) == steps:
            return out, loader.state_dict()
    return out, None


def test_training_crops_repeat_across_threads_and_resume(own_size_file):
    path, _ = own_size_file
    whole, _ = run(path, threads=1)
    assert all(images.shape[1:] == (3, 32, 32) for images, _ in whole)
    again, _ = run(path, threads=2)
    for (a, ia), (b, ib) in zip(whole, again):
        assert torch.equal(ia, ib) and torch.equal(a, b)
    first, state = run(path, threads=2, steps=2)
    rest, _ = run(path, threads=2, state=state)
    for (a, ia), (b, ib) in zip(whole, first + rest):
        assert torch.equal(ia, ib) and torch.equal(a, b)
    other_epoch, _ = run(path, threads=1, epoch=2)
    assert not torch.equal(torch.cat([i for _, i in whole]), torch.cat([i for _, i in other_epoch]))


def test_a_served_file_gives_the_local_files_crops(own_size_file, tmp_path):
    path, _ = own_size_file
    shutil.copy(path, tmp_path / "photos.h5")
    local, _ = run(path, threads=2)
    with Nginx(tmp_path) as server:
        served, _ = run(server.url("photos.h5"), threads=2)
        assert any("/photos.h5" in line for line in server.requests())
    assert len(served) == len(local) == 6
    for (a, ia), (b, ib) in zip(local, served):
        assert torch.equal(ia, ib) and torch.equal(a, b)


def test_direct_reading_gives_the_crops_of_reading_through_the_page_cache(own_size_file):
    # O_DIRECT reads each chunk's 4 KiB-aligned enclosing range into the loader's buffers:
    # images are packed across 64 KiB chunks, so rows sit at every offset within them.
    path, _ = own_size_file
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_DIRECT))
    except OSError:
        pytest.skip("the file system of the test's folder refuses O_DIRECT")
    cached, _ = run(path, threads=2)
    direct, _ = run(path, threads=2, direct=True)
    assert len(direct) == len(cached) == 6
    for (a, ia), (b, ib) in zip(cached, direct):
        assert torch.equal(ia, ib) and torch.equal(a, b)


def test_two_ranks_read_every_image_once(own_size_file):
    path, _ = own_size_file
    rows = [torch.cat([i for _, i in run(path, rank=r, world_size=2)[0]]) for r in range(2)]
    assert sorted(torch.cat(rows).tolist()) == list(range(48))


def test_a_center_crop_past_the_shorter_side_reads_where_every_resized_image_holds_it(
        tmp_path):
    # Resize(48) makes these landscape photos 48 x 64, 48 x 85 and 48 x 64: CenterCrop((48, 64))
    # fits each, and was refused as larger than 48 on a side.
    rng = np.random.default_rng(3)
    for i, (height, width) in enumerate([(60, 80), (54, 96), (90, 120)] * 3):
        (tmp_path / "photos" / "a").mkdir(parents=True, exist_ok=True)
        Image.fromarray(photo(rng, height, width)).save(tmp_path / "photos" / "a" / f"{i}.png")
    path = tmp_path / "landscape.h5"
    h5feed.convert_imagefolder(tmp_path / "photos", path, max_side=160, encoding="raw")
    with h5py.File(path, "r") as f:
        stored_images = [stored_image(f, n) for n in range(len(f["labels"]))]
    loader = h5feed.Loader(path, 4, mean=MEAN, std=STD, with_indices=True, sampler="sequential",
                           augment=h5feed.Augment(resize=48, center_crop=(48, 64)))
    level = 1 / (255 * torch.tensor(STD).view(3, 1, 1))
    seen = []
    for images, _, indices in loader:
        assert images.shape == (len(indices), 3, 48, 64)
        for image, n in zip(images, indices.tolist()):
            expected = torchvision_validation(stored_images[n], 48, (48, 64))
            assert torch.all((image - expected).abs() <= level * 1.001)
            seen.append(n)
    assert sorted(seen) == list(range(9))


def test_a_center_crop_some_resized_image_cannot_hold_is_refused_naming_the_largest(
        own_size_file):
    # The 80 x 60 photos resized are 64 x 48: 48 wide, narrower than the crop.
    path, _ = own_size_file
    with pytest.raises(ValueError, match=r"center_crop is 48x64 but Augment.resize = 48 makes "
                       r"the file's narrowest image \((80 x 60|120 x 90), height x width\) 48 "
                       r"wide and its flattest \(54 x 96\) 48 tall; crop at most 48x48"):
        h5feed.Loader(path, 8, augment=h5feed.Augment(resize=48, center_crop=(48, 64)))


def test_opening_without_a_crop_names_the_options(own_size_file):
    path, _ = own_size_file
    with pytest.raises(ValueError, match="random_resized_crop"):
        h5feed.Loader(path, 8)


def test_a_damaged_image_is_caught_and_named(own_size_file, tmp_path):
    path, _ = own_size_file
    damaged = tmp_path / "damaged.h5"
    damaged.write_bytes(path.read_bytes())
    with h5py.File(path, "r") as f:
        # A byte in the middle of image 5's stored bytes, where the chunk lies in the file.
        chunk_bytes = int(f.attrs["chunk_bytes"])
        offset = int(f["image_offsets"][5])
        info = f["images"].id.get_chunk_info_by_coord((offset // chunk_bytes * chunk_bytes,))
        compression = f.attrs["compression"]
    if compression != "none":
        pytest.skip("the damage is placed in an uncompressed chunk")
    with open(damaged, "r+b") as out:
        out.seek(info.byte_offset + offset % chunk_bytes + int(f_bytes(path, 5)) // 2)
        byte = out.read(1)
        out.seek(-1, 1)
        out.write(bytes([byte[0] ^ 0xFF]))
    loader = h5feed.Loader(damaged, 8, mean=MEAN, std=STD,
                           augment=h5feed.Augment(random_resized_crop=32), sampler="sequential")
    with pytest.raises(h5feed.CorruptDataError, match="row 5|rows"):
        for _ in loader:
            pass


def f_bytes(path, n):
    with h5py.File(path, "r") as f:
        return int(f["image_bytes"][n])


def test_echoed_batches_repeat_their_rows_with_the_same_crops(own_size_file):
    # Echo repeats a loaded batch: the crop was made as it was gathered, so an echo copy holds
    # the same crops, each flipped anew (echoing after augmentation).
    path, _ = own_size_file
    augment = h5feed.Augment(random_resized_crop=32)
    loader = h5feed.Loader(path, 8, mean=MEAN, std=STD, with_indices=True, augment=augment,
                           echo=2, seed=3)
    batches = [(images.clone(), indices.clone()) for images, _, indices in loader]
    assert len(batches) == 2 * 6
    for (first, rows), (copy, copy_rows) in zip(batches[0::2], batches[1::2]):
        assert sorted(rows.tolist()) == sorted(copy_rows.tolist())
        by_row = {int(r): image for r, image in zip(rows, first)}
        for r, image in zip(copy_rows, copy):
            assert torch.equal(image, by_row[int(r)])


def views_of(path, views, **options):
    loader = h5feed.Loader(path, 8, mean=MEAN, std=STD, with_indices=True, views=views, seed=5,
                           sampler="sequential", **options)
    return [(tuple(v.clone() for v in images), indices.clone()) for images, _, indices in loader]


def test_each_view_is_the_crop_a_loader_of_that_view_alone_makes(own_size_file):
    # Every view of a sample is cropped from one decode of its stored image, into its own part
    # of the slot (docs/reader.md, "Several views of images at their own size").
    path, encoding = own_size_file
    with h5py.File(path, "r") as f:
        stored_images = [stored_image(f, n) for n in range(len(f["labels"]))]
    views = [h5feed.Augment(random_resized_crop=32, random_flip=True, count=2),
             h5feed.Augment(random_resized_crop=16, scale=(0.05, 0.4), count=3),
             h5feed.Augment(resize=48, center_crop=(40, 40))]
    several = views_of(path, views)
    alone = views_of(path, [views[0]])  # its view 0 draws as view 0 of `several` does
    level = 1 / (255 * torch.tensor(STD).view(3, 1, 1))
    assert len(several) == len(alone) == 6
    for (images, rows), (single, single_rows) in zip(several, alone):
        assert [tuple(v.shape[1:]) for v in images] == \
            [(3, 32, 32)] * 2 + [(3, 16, 16)] * 3 + [(3, 40, 40)]
        assert torch.equal(rows, single_rows)
        if encoding == "raw":
            assert torch.equal(images[0], single[0])
        else:  # the shared decode may be at a finer DCT scale than view 0 alone needs
            assert ((images[0] - single[0]).abs() / level).mean() < 3
        assert not torch.equal(images[0], images[1]) and not torch.equal(images[2], images[3])
        for image, n in zip(images[5], rows.tolist()):
            expected = torchvision_validation(stored_images[n], 48, (40, 40))
            difference = (image - expected).abs() / level
            if encoding == "raw":
                assert torch.all(difference <= 1.001)
            else:
                assert difference.mean() < 3


def test_the_output_size_changes_between_epochs_as_if_opened_at_that_size(own_size_file):
    path, _ = own_size_file

    def crops(loader):
        return [(images.clone(), indices.clone()) for images, _, indices in loader]

    def opened(size, **extra):
        return h5feed.Loader(path, 8, mean=MEAN, std=STD, with_indices=True, seed=5,
                             augment=h5feed.Augment(random_resized_crop=size, random_flip=True,
                                                    **extra))
    loader = opened(16, max_size=32)
    loader.set_epoch(1)
    assert {tuple(images.shape[2:]) for images, _ in crops(loader)} == {(16, 16)}
    loader.set_output_size((24, 32))
    loader.set_epoch(1)
    grown = crops(loader)
    reference = opened((24, 32))
    reference.set_epoch(1)
    # The boxes and flips do not depend on the size: the same crops, resized to 24 x 32.
    for (a, ia), (b, ib) in zip(grown, crops(reference), strict=True):
        assert a.shape[2:] == (24, 32)
        assert torch.equal(ia, ib) and torch.equal(a, b)
    with pytest.raises(h5feed.InvalidArgumentError, match="max_size"):
        loader.set_output_size(40)


def test_the_loader_says_which_rows_each_chunk_holds(own_size_file):
    path, _ = own_size_file
    with h5py.File(path, "r") as f:
        chunk_of_row = f["image_offsets"][:] // int(f.attrs["chunk_bytes"])
    first_rows = [0] + [n for n in range(1, len(chunk_of_row))
                        if chunk_of_row[n] != chunk_of_row[n - 1]] + [len(chunk_of_row)]
    dataset = h5feed.Loader(path, 8, mean=MEAN, std=STD,
                            augment=h5feed.Augment(random_resized_crop=32)).dataset
    assert dataset["own_size"] and dataset["chunks"] == len(first_rows) - 1 > 1
    assert dataset["chunk_first_rows"] == first_rows


def test_the_slots_hold_the_crops_not_the_largest_image(own_size_file):
    path, _ = own_size_file
    loader = h5feed.Loader(path, 8, mean=MEAN, std=STD, slots=3,
                           augment=h5feed.Augment(random_resized_crop=32))
    # Per slot: 8 gathered 32 x 32 crops and their float32 images, plus labels, rows and
    # alignment; the largest image (120 x 160) would take 57,600 bytes a row more.
    per_slot = 8 * (32 * 32 * 3 + 32 * 32 * 3 * 4)
    assert 3 * per_slot <= loader.stats()["slot_bytes"] <= 3 * (per_slot + 16 * 4096)


def test_rechunking_keeps_each_images_source(own_size_file, tmp_path):
    path, _ = own_size_file
    out = tmp_path / "rechunked.h5"
    h5feed.rechunk(path, out, shuffle=True, seed=5)
    with h5py.File(path, "r") as f, h5py.File(out, "r") as g:
        before = {bytes(s): stored_image(f, n) for n, s in enumerate(f["sources"][:])}
        after = {bytes(s): stored_image(g, n) for n, s in enumerate(g["sources"][:])}
        assert sorted(after) == sorted(before)  # the photos' paths, not "images[i]"
        assert all(np.array_equal(after[s], before[s]) for s in after)
