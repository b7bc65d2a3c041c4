"""h5feed.Loader(fields=['mask', 'boxes']): masks and boxes follow the images' geometry
(docs/augment.md, "Masks and boxes follow the image's geometry"). On coordinate images (R = x,
G = y) whose uint16 mask says y * 256 + x (tests/lib/loader/write_geometry_test_file), over
several epochs of random resized crops with flips in two views, for a file of one image size
and one of images at their own size: each delivered mask equals torchvision's NEAREST
resized_crop (then hflip) of the stored mask at a box that the delivered image's pixels agree
with; the dict has the keys the issue names (images, labels, indices, mask, boxes,
boxes_count, box_labels), the boxes are padded past each count and their labels are those of
the stored boxes kept, in order. (tests/lib/loader/loader_geometric_fields_test.cpp compares
the boxes with TransformBoxes at the recovered box.)"""
import os
import shutil
import subprocess

import h5py
import numpy as np
import pytest
import torch
from PIL import Image
import torchvision.transforms.functional as F
from torchvision.transforms import InterpolationMode

import h5feed

WRITE = os.environ["WRITE_GEOMETRY_TEST_FILE"]
IMAGES = 30
VIEWS = [(40, 32), (16, 24)]


def stored_shape(row, own_size):  # test_files.h's OwnSizeShape, or the one size
    return (40 + row * 7 % 52, 36 + row * 13 % 64) if own_size else (60, 80)


def stored_mask(height, width):
    y, x = np.mgrid[0:height, 0:width]
    return torch.from_numpy((y * 256 + x).astype(np.int64))


@pytest.fixture(scope="module", params=[False, True], ids=["one_size", "own_size"])
def written(request, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("geometry") / "geometry.h5")
    subprocess.run([WRITE, path] + (["--own-size"] if request.param else []), check=True)
    return path, request.param


def nearest(begin, size, out):  # PyTorch's legacy nearest, in float32
    scale = np.float32(size) / np.float32(out)
    return begin + np.minimum(np.floor(np.arange(out, dtype=np.float32) * scale), size - 1)


def axes(coords, image, stored):
    """The (begin, size) whose NEAREST map is `coords` and whose bilinear ramp `image` agrees
    with it inside the box (within rounding)."""
    out = len(coords)
    found = []
    for size in range(1, stored - coords[0] + 1):
        if not np.array_equal(nearest(coords[0], size, out), coords):
            continue
        scale = size / out
        centers = (np.arange(out) + 0.5) * scale - 0.5
        inside = (centers - max(1.0, scale) >= 0) & (centers + max(1.0, scale) <= size - 1)
        if np.all(np.abs(image[inside] - (coords[0] + centers[inside])) <= 0.75):
            found.append((int(coords[0]), size))
    return found


def check_mask(mask, image, row, own_size):
    height, width = mask.shape
    xs, ys = (mask[0] % 256).numpy(), (mask[:, 0] // 256).numpy()
    red, green = image[0, height // 2].numpy().astype(float), image[1, :, width // 2].numpy()
    flip = width > 1 and xs[0] > xs[-1]
    if flip:
        xs, red = xs[::-1].copy(), red[::-1].copy()
    stored_height, stored_width = stored_shape(row, own_size)
    columns = axes(xs, red, stored_width)
    rows = axes(ys, green.astype(float), stored_height)
    assert columns and rows, (row, flip)
    (top, box_height), (left, box_width) = rows[0], columns[0]
    expected = F.resized_crop(stored_mask(stored_height, stored_width)[None], top, left,
                              box_height, box_width, [height, width], InterpolationMode.NEAREST)[0]
    if flip:
        expected = F.hflip(expected)
    assert torch.equal(mask, expected), (row, flip)
    return flip


def test_masks_and_boxes_follow_the_crops_and_flips(written):
    path, own_size = written
    loader = h5feed.Loader(
        path, batch_size=6, seed=3, threads=2, with_indices=True, as_dict=True, dtype=None,
        fields=["mask", "boxes"],
        views=[h5feed.Augment(random_resized_crop=size, scale=(0.2, 1.0), random_flip=True)
               for size in VIEWS])
    flipped = samples = 0
    for epoch in range(3):
        loader.set_epoch(epoch)
        for batch in loader:
            assert list(batch) == ["images", "labels", "mask", "boxes", "boxes_count",
                                   "box_labels", "indices"]
            for v, (height, width) in enumerate(VIEWS):
                images, masks = batch["images"][v], batch["mask"][v]
                boxes, counts = batch["boxes"][v], batch["boxes_count"][v]
                labels = batch["box_labels"][v]
                n = len(batch["indices"])
                assert masks.shape == (n, height, width) and masks.dtype == torch.int64
                assert boxes.dtype == torch.float32 and boxes.shape[0] == n
                assert boxes.shape[2] == 4 and labels.shape == boxes.shape[:2]
                assert counts.shape == (n,) and counts.dtype == torch.int64
                for i, row in enumerate(batch["indices"].tolist()):
                    flipped += check_mask(masks[i], images[i], row, own_size)
                    samples += 1
                    k = int(counts[i])
                    assert not boxes[i, k:].any() and not labels[i, k:].any()
                    kept = boxes[i, :k]
                    assert torch.all(kept[:, 2] - kept[:, 0] >= 1)
                    assert torch.all(kept[:, 3] - kept[:, 1] >= 1)
                    assert torch.all(kept[:, 2] <= width) and torch.all(kept[:, 3] <= height)
                    stored_labels = [10 * row + j for j in range(row % 4)]
                    it = iter(stored_labels)  # the kept labels: a subsequence, in order
                    assert all(label in it for label in labels[i, :k].tolist())
    assert samples == 3 * IMAGES * len(VIEWS)
    assert samples // 4 < flipped < samples * 3 // 4


def test_the_tuple_form_gives_boxes_then_their_count_then_labels(written):
    path, own_size = written
    # A file of images at their own size needs a crop for any batch (which may drop boxes).
    augment = h5feed.Augment(random_resized_crop=(60, 80))
    loader = h5feed.Loader(path, batch_size=5, fields=["boxes"], sampler="sequential",
                           augment=augment if own_size else None)
    images, labels, boxes, counts, box_labels = next(iter(loader))
    assert boxes.shape[0] == counts.shape[0] == box_labels.shape[0] == 5
    stored = [row % 4 for row in range(5)]
    if own_size:
        assert all(0 <= kept <= k for kept, k in zip(counts.tolist(), stored))
    else:
        assert counts.tolist() == stored


def test_mask_dtype_and_boxes_as_list_give_the_same_values_in_the_forms_asked(written):
    path, _ = written

    def batches(**options):
        loader = h5feed.Loader(path, batch_size=4, seed=5, fields=["mask", "boxes"],
                               as_dict=True, views=[h5feed.Augment(random_resized_crop=size,
                                                                   random_flip=True)
                                                    for size in VIEWS], **options)
        # Copies: a batch's tensors hold its buffer, which a list of batches would keep.
        return [{k: clone(v) for k, v in batch.items() if k != "images"} for batch in loader]

    padded = batches()
    listed = batches(mask_dtype=torch.int32, boxes_as_list=True)
    assert len(padded) == len(listed) == (IMAGES + 3) // 4
    for plain, asked in zip(padded, listed):
        for v in range(len(VIEWS)):
            assert asked["mask"][v].dtype == torch.int32
            assert torch.equal(asked["mask"][v].long(), plain["mask"][v])
            counts = plain["boxes_count"][v].tolist()
            assert torch.equal(asked["boxes_count"][v], plain["boxes_count"][v])
            assert [tuple(b.shape) for b in asked["boxes"][v]] == [(k, 4) for k in counts]
            assert [tuple(b.shape) for b in asked["box_labels"][v]] == [(k,) for k in counts]
            for i, k in enumerate(counts):
                assert torch.equal(asked["boxes"][v][i], plain["boxes"][v][i, :k])
                assert torch.equal(asked["box_labels"][v][i], plain["box_labels"][v][i, :k])


class VocLikeMasks:
    """4 images of 16 x 16 with palette masks (as VOC's are) holding classes 0 and 1, and
    VOC's ignore label 255 where `ignore` asks for it."""

    def __init__(self, ignore):
        self.ignore = ignore

    def __len__(self):
        return 4

    def __getitem__(self, i):
        mask = np.zeros((16, 16), np.uint8)
        mask[4:12, 4:12] = 1
        if self.ignore:
            mask[4:12, 11] = 255
        return {"image": np.full((16, 16, 3), 50 * i, np.uint8),
                "mask": Image.fromarray(mask, "P")}


def test_a_mask_dtype_that_cannot_hold_a_batchs_mask_values_is_refused_not_wrapped(written,
                                                                                    tmp_path):
    path, _ = written
    augment = h5feed.Augment(random_resized_crop=32)

    def first(path, dtype):
        loader = h5feed.Loader(path, batch_size=4, sampler="sequential", fields=["mask"],
                               mask_dtype=dtype, augment=augment)
        return next(iter(loader))[2]

    # The uint16 masks hold y * 256 + x, up to 59 * 256 + 79: uint8 would wrap them.
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"mask_dtype=torch.uint8 cannot hold the value \d+ of mask field "
                       r"'mask' \(stored as uint16\)"):
        first(path, torch.uint8)
    assert torch.equal(first(path, torch.int16).long(), first(path, None))
    # uint8 masks: VOC's ignore label 255 as int8 would be -1; classes 0 and 1 alone fit.
    for ignore in (False, True):
        voc = tmp_path / f"voc_{ignore}.h5"
        h5feed.write(VocLikeMasks(ignore), voc, size=16, workers=0, progress=False)
        if ignore:
            with pytest.raises(h5feed.InvalidArgumentError, match="value 255"):
                first(voc, torch.int8)
        else:
            assert torch.equal(first(voc, torch.int8).long(), first(voc, None).long())


@pytest.mark.parametrize("boxes_as_list", [False, True], ids=["tensors", "lists"])
def test_masks_and_boxes_kept_past_their_step_hold_nothing_of_the_loader(written, tmp_path,
                                                                          boxes_as_list):
    """An evaluation gathers every batch's ground truth (torchmetrics' MeanAveragePrecision
    keeps the target tensors it is given); on the host these are tensors of their own, apart
    from the batch's buffer, so a whole epoch's may be kept with 2 slots (no earlier batch is
    held once its images go), and they keep their values."""
    voc = tmp_path / "voc.h5"  # uint8 masks: delivered as made, not widened
    h5feed.write(VocLikeMasks(True), voc, size=16, workers=0, progress=False)
    path, _ = written  # uint16 masks: widened to int64
    for file, fields in ((voc, ["mask"]), (path, ["mask", "boxes"])):
        def run():
            return h5feed.Loader(file, batch_size=1, seed=2, slots=2, threads=1, as_dict=True,
                                 fields=fields, boxes_as_list=boxes_as_list,
                                 augment=h5feed.Augment(random_resized_crop=12, random_flip=True))

        loader, kept = run(), []
        for batch in loader:  # in 5 s of starvation the loader would raise
            kept.append({k: v for k, v in batch.items() if k not in ("images", "labels")})
            del batch  # what the loop's generator still has of the batch holds it alone
            assert loader._native.held_batches <= 1
        assert len(kept) == len(run()) > 3  # slots=2 is 3 buffers (test_zero_copy.py)
        for held, fresh in zip(kept, run()):
            assert held.keys() == fresh.keys() - {"images", "labels"}
            for key, value in held.items():
                assert torch.equal(value, fresh[key]) if isinstance(value, torch.Tensor) else \
                    all(torch.equal(a, b) for a, b in zip(value, fresh[key])), key


def test_a_damaged_boxes_row_leaves_its_chunk_out_with_skip_corrupt_chunks(written, tmp_path):
    """A boxes row written over with another number of boxes: its checksum no longer matches,
    nor its count its labels'. The open fails naming it; with skip_corrupt_chunks the rows of
    its image chunk are left out and every other row comes with its own boxes and labels."""
    path, own_size = written
    damaged = tmp_path / "damaged.h5"
    shutil.copy(path, damaged)
    with h5py.File(damaged, "r+") as f:
        f["boxes"][7] = np.zeros(5 * 16, dtype=np.uint8)  # 5 boxes where 3 were

    def run(**kwargs):
        # A file of images at their own size needs a crop for any batch.
        return h5feed.Loader(damaged, batch_size=5, fields=["boxes"], sampler="sequential",
                             with_indices=True, open_probe=False,
                             augment=h5feed.Augment(random_resized_crop=(60, 80))
                             if own_size else None, **kwargs)

    with pytest.raises(h5feed.CorruptDataError, match=r"row 7 \(chunk \d+\) of field boxes in "):
        run()
    with pytest.warns(UserWarning, match=r"corrupt chunk \d+ \(row 7 \(chunk \d+\) of field "
                                         r"boxes in .*checksum mismatch"):
        loader = run(skip_corrupt_chunks=True)
    delivered = []
    for _, _, boxes, counts, box_labels, indices in loader:
        for i, row in enumerate(indices.tolist()):
            k = int(counts[i])
            assert k <= row % 4 if own_size else k == row % 4
            it = iter([10 * row + j for j in range(row % 4)])  # its labels, in order
            assert all(label in it for label in box_labels[i, :k].tolist())
            delivered.append(row)
    missing = sorted(set(range(IMAGES)) - set(delivered))
    assert 7 in missing and missing == list(range(missing[0], missing[-1] + 1))  # one chunk
    assert missing == list(range(8)) or own_size  # a file of one image size: chunks of 8
    assert len(delivered) == len(set(delivered)) == IMAGES - len(missing)


def test_box_labels_asked_before_their_boxes_come_where_asked_with_the_same_values(written):
    path, _ = written

    def batches(fields, **options):
        loader = h5feed.Loader(path, batch_size=4, seed=5, fields=fields, as_dict=True,
                               augment=h5feed.Augment(random_resized_crop=32, random_flip=True),
                               **options)
        return [{k: clone(v) for k, v in batch.items() if k != "images"} for batch in loader]

    for listed in (False, True):
        boxes_first = batches(["boxes", "box_labels"], boxes_as_list=listed)
        labels_first = batches(["box_labels", "mask", "boxes"], boxes_as_list=listed)
        assert len(labels_first) == len(boxes_first) == (IMAGES + 3) // 4
        for expected, got in zip(boxes_first, labels_first):
            assert list(got) == ["labels", "box_labels", "mask", "boxes", "boxes_count"]
            for key in ("box_labels", "boxes", "boxes_count"):
                assert type(got[key]) is type(expected[key])
                assert all(torch.equal(a, b) for a, b in zip(got[key], expected[key])), key
    images, labels, box_labels, boxes, counts = next(iter(h5feed.Loader(
        path, batch_size=4, fields=["box_labels", "boxes"], boxes_as_list=True,
        augment=h5feed.Augment(random_resized_crop=32))))
    assert [tuple(b.shape) for b in box_labels] == [(k,) for k in counts.tolist()]


def clone(value):
    if isinstance(value, torch.Tensor):
        return value.clone()
    return type(value)(clone(v) for v in value)


def test_a_mask_dtype_that_is_not_an_integer_type_is_refused(written):
    path, _ = written
    with pytest.raises(TypeError, match="mask_dtype is an integer torch.dtype"):
        h5feed.Loader(path, batch_size=5, fields=["mask"], mask_dtype=torch.float32)


def test_device_cuda_delivers_the_masks_and_boxes_of_the_cpu(written, recwarn):
    """device="cuda": on a GPU the masks are cropped on the device;
    where no device is usable the loader says so and delivers host batches. Either way every
    mask, box, count and box label is the CPU run's (test_fields_gpu.py checks where each
    lies on a GPU)."""
    path, _ = written

    def run(device):
        loader = h5feed.Loader(path, batch_size=5, seed=4, threads=2, as_dict=True,
                               fields=["mask", "boxes"], device=device, echo=2, with_indices=True,
                               augment=h5feed.Augment(random_resized_crop=32, random_flip=True))
        batches = []
        for epoch in range(2):
            loader.set_epoch(epoch)
            batches += [{key: batch[key].cpu().clone() for key in
                         ("mask", "boxes", "boxes_count", "box_labels", "indices")}
                        for batch in loader]
        return batches

    cpu, cuda = run("cpu"), run("cuda")
    assert len(cpu) == len(cuda) == 2 * 2 * IMAGES // 5
    for expected, got in zip(cpu, cuda):
        for key, value in expected.items():
            assert torch.equal(value, got[key]), key
