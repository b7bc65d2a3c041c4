"""h5feed.write with masks and boxes: samples carrying a mask (a PIL image in mode L, P, 1, I or
I;16, or an H x W (1 x H x W) array of integer class ids) and boxes (K x 4 xyxy) with their classes
are written as the mask, boxes and box_labels fields (docs/format.md, "Masks and boxes"). Stored at
their own size, they read back equal through h5py and through the Loader; when the writer resizes
the image (max_side, or size= with crop, stretch or pad), the mask is resized by nearest neighbour
with the same geometry (PyTorch's nearest interpolate for a capped size, and where the image's
pixels land for every mode) and the boxes are scaled with it. A mask of the wrong size, box labels
of another count than their boxes, a box of nan or infinite coordinates, one whose x2 or y2 is below
its x1 or y1, or boxes normalized to 0-1, are refused naming the row; box labels of a field that is
not boxes, before any file. Without augmentation the loader delivers the stored boxes clipped to the
image; images at their own size that all have one size are read with their masks and boxes as the
file written at that size is. An (image, mask) pair is a mask field; box labels of whole floats are
their classes; 'labels' beside boxes is refused saying 'box_labels'. An (image, target) pair of a
torchvision detection target is its boxes, its labels as box labels and its other keys as fields;
a key that is no field (instance masks among them) is refused naming it."""
import io

import h5py
import numpy as np
import pytest
import torch
import zstandard
from PIL import Image

import h5feed

CLASSES = 5


def coordinate_mask(height, width):
    y, x = np.mgrid[0:height, 0:width]
    return (y * 256 + x).astype(np.uint16)


def block_sample(row, height, width):
    """An image of 8 x 8 blocks of gray classes (class c: 40 c), its uint8 mask of the classes,
    and a box around each of two blocks with their classes."""
    rng = np.random.default_rng(row)
    classes = rng.integers(1, CLASSES + 1, ((height + 7) // 8, (width + 7) // 8))
    mask = np.kron(classes, np.ones((8, 8), np.uint8))[:height, :width].astype(np.uint8)
    image = np.repeat((mask * 40)[:, :, None], 3, axis=2).astype(np.uint8)
    boxes = np.array([[0, 0, 8, 8], [8, 8, 16, 24]], np.float32)[:row % 3]
    labels = np.arange(row % 3) + row
    return image, mask, boxes, labels


class Blocks:
    def __init__(self, shapes, mask_as="array", encoded=False):
        self.shapes, self.mask_as, self.encoded = shapes, mask_as, encoded

    def __len__(self):
        return len(self.shapes)

    def __getitem__(self, i):
        image, mask, boxes, labels = block_sample(i, *self.shapes[i])
        if self.mask_as == "L":
            mask = Image.fromarray(mask, "L")
        elif self.mask_as == "P":
            mask = Image.fromarray(mask, "P")
            mask.putpalette([v for c in range(256) for v in (c, 255 - c, c // 2)])
        if self.encoded:
            out = io.BytesIO()
            Image.fromarray(image).save(out, "PNG")
            image = out.getvalue()
        return {"image": image, "mask": mask, "boxes": boxes, "box_labels": labels, "label": 0}


def stored_mask(f, n, name="mask"):
    """Row n of the mask field `name` of a file of images at their own size (an open h5py.File)."""
    height, width, _ = f["image_shapes"][n]
    dtype = np.dtype(f[name].attrs["h5feed_mask_type"]).newbyteorder("<")
    assert f[name].attrs["h5feed_mask_encoding"] == "zstd"
    values = zstandard.ZstdDecompressor().decompress(f[name][n].tobytes())
    return np.frombuffer(values, dtype).reshape(height, width)


def stored_rows(path):
    """{dataset index: (mask, boxes, box labels, image)} of a written file, read with h5py."""
    rows = {}
    with h5py.File(path) as f:
        own_size = "image_shapes" in f
        for n, source in enumerate(f["sources"][:]):
            if own_size:
                mask, image = stored_mask(f, n), None
            else:
                mask, image = f["mask"][n], f["images"][n]
            boxes = np.frombuffer(f["boxes"][n].tobytes(), "<f4").reshape(-1, 4)
            labels = np.frombuffer(f["box_labels"][n].tobytes(), "<i8")
            rows[int(source.decode())] = (mask, boxes, labels, image)
    return rows


SHAPES = [(24 + 8 * (i % 4), 40 - 8 * (i % 3)) for i in range(12)]


@pytest.mark.parametrize("mask_as",
                         ["array", "L", pytest.param("P", marks=pytest.mark.forks_workers)])
def test_masks_and_boxes_at_their_own_size_read_back_equal(tmp_path, mask_as):
    path = tmp_path / "blocks.h5"
    h5feed.write(Blocks(SHAPES, mask_as), path, max_side=512, workers=2 if mask_as == "P" else 0,
                 progress=False)
    rows = stored_rows(path)
    assert sorted(rows) == list(range(len(SHAPES)))
    for i, (mask, boxes, labels, _) in rows.items():
        _, source_mask, source_boxes, source_labels = block_sample(i, *SHAPES[i])
        assert mask.dtype == np.uint8 and np.array_equal(mask, source_mask)
        assert np.array_equal(boxes, source_boxes) and np.array_equal(labels, source_labels)


def sixteen_bit_png_mask(mask):
    """`mask` as Image.open gives a 16-bit PNG: mode I on Pillow before 10, I;16 after."""
    out = io.BytesIO()
    Image.fromarray(mask.astype(np.uint16)).save(out, "PNG")
    return Image.open(io.BytesIO(out.getvalue()))


# The masks pipelines make besides uint8 arrays and L/P images: torchvision's segmentation
# references' int64 targets, PILToTensor's 1 x H x W, a binary mask's bools and PIL mode 1, a
# 16-bit PNG opened by PIL; each read back as the uint8 class ids it holds.
MASK_FORMS = {
    "int64 tensor": lambda mask: torch.from_numpy(mask.astype(np.int64)),
    "1 x H x W tensor": lambda mask: torch.from_numpy(mask)[None],
    "int32 H x W x 1": lambda mask: mask.astype(np.int32)[:, :, None],
    "bool": lambda mask: mask == 1,
    "PIL 1": lambda mask: Image.fromarray(mask == 1),
    "16-bit PNG": sixteen_bit_png_mask,
}


@pytest.mark.parametrize("form", MASK_FORMS)
def test_masks_of_other_integer_types_and_shapes_are_stored_as_their_class_ids(tmp_path, form):
    class Formed(Blocks):
        def __getitem__(self, i):
            sample = super().__getitem__(i)
            sample["mask"] = MASK_FORMS[form](sample["mask"])
            return sample

    path = tmp_path / "formed.h5"
    h5feed.write(Formed(SHAPES), path, max_side=512, workers=0, progress=False)
    for i, (mask, _, _, _) in stored_rows(path).items():
        source = block_sample(i, *SHAPES[i])[1]
        expected = (source == 1).astype(np.uint8) if form in ("bool", "PIL 1") else source
        assert mask.dtype == np.uint8 and np.array_equal(mask, expected)


@pytest.mark.parametrize("mask_as", ["P", "int64 tensor"])
def test_an_image_and_mask_pair_is_stored_as_a_mask_without_labels(tmp_path, mask_as):
    # torchvision's VOCSegmentation gives (image, PIL "P" mask); its references' transforms, a
    # mask as an int64 tensor.
    class Pairs(Blocks):
        def __getitem__(self, i):
            sample = super().__getitem__(i)
            mask = sample["mask"]
            return sample["image"], mask if mask_as == "P" else torch.from_numpy(mask.astype(
                np.int64))

    path = tmp_path / "pairs.h5"
    report = h5feed.write(Pairs(SHAPES, "P" if mask_as == "P" else "array"), path,
                          workers=0, progress=False)
    assert not report["labelled"] and [f["name"] for f in report["fields"]] == ["mask"]
    with h5py.File(path) as f:
        for n, source in enumerate(f["sources"][:]):
            i = int(source.decode())
            assert np.array_equal(stored_mask(f, n), block_sample(i, *SHAPES[i])[1])


@pytest.mark.parametrize("name, workers", [
    ("mask", 0), ("seg", 0), pytest.param("seg", 2, marks=pytest.mark.forks_workers)])
def test_a_mask_given_as_a_files_path_or_bytes_is_stored_as_the_file_holds_it(tmp_path, name,
                                                                             workers):
    # Images may be paths; so may their masks: VOC's SegmentationClass "P" PNGs, 16-bit PNGs.
    # Under a name fields= makes a mask, they are too (not text and bytes): the workers that
    # make the samples' values know the masks fields= gives.
    paths = []
    for i, (height, width) in enumerate(SHAPES[:4]):
        image, mask, _, _ = block_sample(i, height, width)
        Image.fromarray(image).save(tmp_path / f"{i}.png")
        if i % 2:
            Image.fromarray(mask.astype(np.uint16) * 300).save(tmp_path / f"{i}-mask.png")
        else:
            palette = Image.fromarray(mask, "P")
            palette.putpalette([v for c in range(256) for v in (c, 255 - c, c // 2)])
            palette.save(tmp_path / f"{i}-mask.png")
        paths.append((str(tmp_path / f"{i}.png"), tmp_path / f"{i}-mask.png"))
    samples = [{"image": image, name: mask if i < 3 else mask.read_bytes()}
               for i, (image, mask) in enumerate(paths)]
    out = tmp_path / "paths.h5"
    h5feed.write(samples, out, workers=workers, progress=False, shuffle=False,
                 fields={name: "mask uint16"})
    with h5py.File(out) as f:
        for i in range(4):
            mask = block_sample(i, *SHAPES[i])[1].astype(np.uint16)
            assert np.array_equal(stored_mask(f, i, name), mask * 300 if i % 2 else mask)
    palettes = [{"image": image, name: mask.read_bytes() if i else mask}
                for i, (image, mask) in enumerate(paths[::2])]
    h5feed.write(palettes, tmp_path / "palettes.h5", workers=workers, progress=False,
                 shuffle=False, fields={name: "mask"})
    with h5py.File(tmp_path / "palettes.h5") as f:
        assert f[name].attrs["h5feed_mask_type"] == "uint8"
        for n, i in enumerate([0, 2]):
            assert np.array_equal(stored_mask(f, n, name), block_sample(i, *SHAPES[i])[1])
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[0\]: mask 'mask' \(.*nowhere.png\) does not open as an "
                       "image: .*No such file"):
        h5feed.write([{"image": paths[0][0], "mask": str(tmp_path / "nowhere.png")}],
                     tmp_path / "missing.h5", workers=0, progress=False)


def test_a_mask_of_class_ids_past_255_is_stored_as_uint16(tmp_path):
    path = tmp_path / "wide.h5"
    mask = coordinate_mask(32, 40).astype(np.int64)
    h5feed.write([{"image": np.zeros((32, 40, 3), np.uint8), "mask": mask},
                  {"image": np.zeros((32, 40, 3), np.uint8), "mask": sixteen_bit_png_mask(mask)}],
                 path, workers=0, progress=False)
    with h5py.File(path) as f:
        for n in (0, 1):
            assert stored_mask(f, n).dtype == np.uint16
            assert np.array_equal(stored_mask(f, n), mask)


@pytest.mark.parametrize("value, shown", [(-1, "-1"), (70000, "70000")])
def test_a_mask_of_values_no_class_id_has_is_refused_naming_the_row(tmp_path, value, shown):
    mask = np.zeros((32, 40), np.int64)
    mask[5, 5] = value
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=rf"dataset\[0\]: mask 'mask' holds {shown}; a mask's class ids are 0 "
                       "to 65535"):
        h5feed.write([{"image": np.zeros((32, 40, 3), np.uint8), "mask": mask}],
                     tmp_path / "negative.h5", workers=0, progress=False)


def test_a_mask_past_255_after_uint8_masks_is_refused_saying_to_make_it_uint16(tmp_path):
    samples = [{"image": np.zeros((8, 8, 3), np.uint8), "mask": np.full((8, 8), value)}
               for value in (3, 300)]
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[1\]: field 'mask' is mask uint16, but the field is mask "
                       r"uint8 .*give fields=\{'mask': 'mask uint16'\}"):
        h5feed.write(samples, tmp_path / "mixed.h5", shuffle=False, workers=0, progress=False)
    path = tmp_path / "uint16.h5"
    h5feed.write(samples, path, shuffle=False, workers=0, progress=False,
                 fields={"mask": "mask uint16"})
    with h5py.File(path) as f:
        assert [stored_mask(f, n)[0, 0] for n in (0, 1)] == [3, 300]


def test_a_mask_field_fields_names_takes_an_int64_1_x_h_x_w_tensor(tmp_path):
    path = tmp_path / "seg.h5"
    mask = block_sample(0, 32, 40)[1]
    h5feed.write([{"image": np.zeros((32, 40, 3), np.uint8),
                   "seg": torch.from_numpy(mask.astype(np.int64))[None]}], path,
                 fields={"seg": "mask"}, workers=0, progress=False)
    with h5py.File(path) as f:
        assert np.array_equal(stored_mask(f, 0, "seg"), mask)


def test_an_iterable_of_samples_with_masks_and_boxes_reads_back_equal(tmp_path):
    path = tmp_path / "iterable.h5"
    dataset = Blocks(SHAPES)
    h5feed.write((dataset[i] for i in range(len(SHAPES))), path, max_side=512, progress=False)
    for i, (mask, boxes, labels, _) in stored_rows(path).items():
        _, source_mask, source_boxes, source_labels = block_sample(i, *SHAPES[i])
        assert np.array_equal(mask, source_mask) and np.array_equal(boxes, source_boxes)
        assert np.array_equal(labels, source_labels)


def test_encoded_images_take_their_masks_from_their_header_size(tmp_path):
    path = tmp_path / "encoded.h5"
    h5feed.write(Blocks(SHAPES, encoded=True), path, max_side=512, workers=2, progress=False)
    for i, (mask, boxes, _, _) in stored_rows(path).items():
        assert np.array_equal(mask, block_sample(i, *SHAPES[i])[1])


def test_an_encoded_image_past_pils_pixel_limit_takes_its_mask_as_max_pixels_allows(
        tmp_path, monkeypatch):
    # Its header was read by PIL, whose DecompressionBombError (past twice MAX_IMAGE_PIXELS)
    # ended the whole writing, naming no row, though max_pixels, h5feed's limit, allowed it.
    # The header is now read by h5feed's own decoders, under h5feed's limits only.
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)  # PIL's refusal from 201 pixels
    dataset = Blocks([(24, 32)] * 3, encoded=True)
    h5feed.write(dataset, tmp_path / "out.h5", max_side=512, workers=0, progress=False)
    for i, (mask, boxes, labels, _) in stored_rows(tmp_path / "out.h5").items():
        _, expected, expected_boxes, expected_labels = block_sample(i, 24, 32)
        np.testing.assert_array_equal(mask, expected)
        np.testing.assert_array_equal(boxes, expected_boxes)
        np.testing.assert_array_equal(labels, expected_labels)


def test_an_encoded_image_whose_header_does_not_read_is_skipped_naming_it(tmp_path):
    class Broken(Blocks):
        def __getitem__(self, i):
            sample = super().__getitem__(i)
            if i == 1:
                sample["image"] = b"\xff\xd8\xff not a JPEG after all"
            return sample

    with pytest.warns(UserWarning, match=r"h5feed: skipped 1: "):
        report = h5feed.write(Broken([(24, 32)] * 3, encoded=True), tmp_path / "out.h5",
                              max_side=512, workers=0, progress=False)
    assert report["images"] == 2 and len(report["skipped"]) == 1


def test_a_capped_size_resizes_the_mask_by_nearest_and_scales_the_boxes(tmp_path):
    shapes = [(60, 90), (90, 45), (50, 50), (31, 70)]

    class Coordinates:
        def __len__(self):
            return len(shapes)

        def __getitem__(self, i):
            height, width = shapes[i]
            image = np.zeros((height, width, 3), np.uint8)
            boxes = np.array([[2.5, 3, 20, 25], [0, 0, width, height], [10, 10, 10.5, 30]],
                             np.float32)
            return {"image": image, "mask": Image.fromarray(coordinate_mask(height, width),
                                                            "I;16"),
                    "boxes": boxes, "box_labels": [7, 8, 9]}

    path = tmp_path / "capped.h5"
    h5feed.write(Coordinates(), path, max_side=40, workers=0, progress=False)
    for i, (mask, boxes, labels, _) in stored_rows(path).items():
        height, width = shapes[i]
        assert mask.dtype == np.uint16 and max(mask.shape) == 40
        expected = torch.nn.functional.interpolate(
            torch.from_numpy(coordinate_mask(height, width).astype(np.float32))[None, None],
            size=mask.shape, mode="nearest")[0, 0].numpy().astype(np.uint16)
        assert np.array_equal(mask, expected)
        scale = np.array([mask.shape[1] / width, mask.shape[0] / height] * 2, np.float32)
        source = np.array([[2.5, 3, 20, 25], [0, 0, width, height]], np.float32)
        # The third box is under a pixel wide once scaled: dropped with its class.
        assert labels.tolist() == [7, 8]
        np.testing.assert_allclose(boxes, source * scale, atol=1e-4)


@pytest.mark.parametrize("resize", ["crop", "stretch", "pad"])
def test_a_fixed_size_moves_the_mask_where_the_image_pixels_land(tmp_path, resize):
    path = tmp_path / f"{resize}.h5"
    shapes = [(48, 80), (80, 48), (64, 64), (40, 56)]
    h5feed.write(Blocks(shapes), path, size=32, resize=resize, workers=0, progress=False)
    for i, (mask, boxes, labels, image) in stored_rows(path).items():
        assert mask.shape == (32, 32)
        gray = image[:, :, 0].astype(int)
        # Inside the blocks (away from their blended edges) the image shows its mask's class;
        # a pad border is 0 in both.
        agree = np.mean(gray == mask.astype(int) * 40)
        assert agree > 0.5, (i, agree)
        assert np.all((mask == 0) == (gray == 0))
        assert len(boxes) == len(labels) <= i % 3
        assert np.all(boxes >= 0) and np.all(boxes <= 32)
        if resize == "stretch":  # the whole image onto the whole stored one: exact references
            _, source_mask, source_boxes, source_labels = block_sample(i, *shapes[i])
            expected = torch.nn.functional.interpolate(
                torch.from_numpy(source_mask.astype(np.float32))[None, None], size=(32, 32),
                mode="nearest")[0, 0].numpy().astype(np.uint8)
            assert np.array_equal(mask, expected)
            height, width = shapes[i]
            scale = np.array([32 / width, 32 / height] * 2, np.float32)
            np.testing.assert_allclose(boxes, source_boxes * scale, atol=1e-4)
            assert labels.tolist() == source_labels.tolist()


def test_the_loader_delivers_the_written_masks_and_boxes(tmp_path):
    path = tmp_path / "loader.h5"
    h5feed.write(Blocks([(32, 32)] * 10), path, size=(32, 32), workers=0, progress=False)
    rows = stored_rows(path)
    loader = h5feed.Loader(path, batch_size=5, sampler="sequential", with_indices=True,
                           as_dict=True, fields=["mask", "boxes"])
    seen = 0
    with h5py.File(path) as f:
        sources = [int(s.decode()) for s in f["sources"][:]]
    for batch in loader:
        for i, n in enumerate(batch["indices"].tolist()):
            mask, boxes, labels, _ = rows[sources[n]]
            assert torch.equal(batch["mask"][i].long(), torch.from_numpy(mask).long())
            k = int(batch["boxes_count"][i])
            assert torch.equal(batch["boxes"][i, :k], torch.from_numpy(boxes.copy()))
            assert batch["box_labels"][i, :k].tolist() == labels.tolist()
            seen += 1
    assert seen == 10


def test_the_loader_delivers_own_size_masks_and_boxes_through_a_whole_image_crop(tmp_path):
    path = tmp_path / "own_size.h5"
    h5feed.write(Blocks([(32, 40)] * 10), path, max_side=512, workers=0, progress=False)
    rows = stored_rows(path)
    # A crop of the whole image at its own size (area 1, the image's aspect ratio) moves nothing.
    whole = h5feed.Augment(random_resized_crop=(32, 40), scale=(1.0, 1.0), ratio=(1.25, 1.25))
    loader = h5feed.Loader(path, batch_size=5, sampler="sequential", with_indices=True,
                           as_dict=True, fields=["mask", "boxes"], augment=whole)
    with h5py.File(path) as f:
        sources = [int(s.decode()) for s in f["sources"][:]]
    seen = 0
    for batch in loader:
        for i, n in enumerate(batch["indices"].tolist()):
            mask, boxes, labels, _ = rows[sources[n]]
            assert np.array_equal(batch["mask"][i].numpy(), mask)
            k = int(batch["boxes_count"][i])
            np.testing.assert_allclose(batch["boxes"][i, :k].numpy(), boxes, atol=1e-4)
            assert batch["box_labels"][i, :k].tolist() == labels.tolist()
            seen += 1
    assert seen == 10


@pytest.mark.parametrize("options", [
    dict(dtype=None),
    dict(augment=h5feed.Augment(random_flip=True), seed=3),
    dict(augment=h5feed.Augment(center_crop=(24, 24), random_flip=True), seed=4),
    dict(augment=h5feed.Augment(random_crop_padding=4, random_flip=True), seed=5, echo=2,
         mask_fill=9),
], ids=["as_stored", "flip", "center_crop", "padding_echo"])
def test_own_size_masks_and_boxes_of_one_size_read_as_the_file_written_at_that_size(
        tmp_path, options):
    # Images at their own size that all have one size are read as they are, without a crop;
    # their masks and boxes, refused there before, are too: every batch equals the file's
    # written with size= of that size (nothing resized), whose geometry is the same.
    own, one = tmp_path / "own.h5", tmp_path / "one.h5"
    h5feed.write(Blocks([(32, 40)] * 12), own, workers=0, progress=False)
    h5feed.write(Blocks([(32, 40)] * 12), one, size=(32, 40), workers=0, progress=False)
    with h5py.File(own) as f:
        assert f.attrs["h5feed_format_version"] == 2 and "image_shapes" in f
    batches = {}
    for name, path in (("own", own), ("one", one)):
        loader = h5feed.Loader(path, batch_size=5, sampler="sequential", with_indices=True,
                               as_dict=True, fields=["mask", "boxes"], **options)
        batches[name] = []
        for epoch in range(2):
            loader.set_epoch(epoch)
            batches[name] += [{k: v.clone() for k, v in batch.items()} for batch in loader]
    assert len(batches["own"]) == len(batches["one"]) == 2 * 3 * options.get("echo", 1)
    for a, b in zip(batches["own"], batches["one"]):
        assert a.keys() == b.keys() and {"mask", "boxes", "boxes_count"} <= a.keys()
        for key in a:
            assert torch.equal(a[key], b[key]), key
    # Through the geometry of a file of one size: as stored, or mirrored by the flip.
    if options.get("augment") == h5feed.Augment(random_flip=True):
        rows = stored_rows(own)
        with h5py.File(own) as f:
            sources = [int(s.decode()) for s in f["sources"][:]]
        mirrored = 0
        for batch in batches["own"]:
            for mask, n in zip(batch["mask"].numpy(), batch["indices"].tolist()):
                stored = rows[sources[n]][0]
                assert np.array_equal(mask, stored) or np.array_equal(mask, stored[:, ::-1])
                mirrored += not np.array_equal(mask, stored)
        assert 0 < mirrored < 2 * 12


def test_a_mask_of_the_wrong_size_is_refused_naming_the_row(tmp_path):
    class Wrong(Blocks):
        def __getitem__(self, i):
            sample = super().__getitem__(i)
            if i == 3:
                sample["mask"] = sample["mask"][:-1]
            return sample

    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[3\]: mask 'mask' is 31 x"):
        h5feed.write(Wrong([(32, 40)] * 6), tmp_path / "wrong.h5", max_side=512, workers=0,
                     progress=False)
    assert not (tmp_path / "wrong.h5").exists()


def test_box_labels_of_another_count_are_refused_naming_the_row(tmp_path):
    class Miscounted(Blocks):
        def __getitem__(self, i):
            sample = super().__getitem__(i)
            if i == 2:
                sample["box_labels"] = [1, 2, 3]
            return sample

    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[2\]: 3 box labels"):
        h5feed.write(Miscounted([(32, 40)] * 6), tmp_path / "miscounted.h5", max_side=512,
                     workers=0, progress=False)


@pytest.mark.parametrize("box, shown", [([np.nan, 1, 8, 8], r"\[nan, 1\.0, 8\.0, 8\.0\]"),
                                        ([0, 0, np.inf, 8], r"\[0\.0, 0\.0, inf, 8\.0\]"),
                                        ([0, 0, 1e39, 8], r"\[0\.0, 0\.0, 1e\+39, 8\.0\]")])
@pytest.mark.parametrize("max_side", [512, 16])  # stored as given, and resized
def test_a_box_of_nan_or_infinite_coordinates_is_refused_naming_the_row(tmp_path, box, shown,
                                                                       max_side):
    class NotFinite(Blocks):
        def __getitem__(self, i):
            sample = super().__getitem__(i)
            if i == 4:
                sample["boxes"], sample["box_labels"] = np.array([[0, 0, 8, 8], box]), [1, 2]
            return sample

    with pytest.raises(h5feed.InvalidArgumentError,
                       match=rf"dataset\[4\]: box 1 of 'boxes' is {shown}; a box is x1, y1, x2, "
                       "y2, finite"):
        h5feed.write(NotFinite([(32, 40)] * 6), tmp_path / "out.h5", max_side=max_side,
                     workers=0, progress=False)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("box", [[30, 4, 10, 8], [2, 20, 6, 10]])  # x, y, w, h; y2 < y1
def test_a_box_whose_x2_or_y2_is_below_its_x1_or_y1_is_refused_naming_the_row(tmp_path, box):
    """x, y, width, height boxes stored as x1, y1, x2, y2 would be dropped by every loader as
    less than a pixel wide or tall, so the detector would see none of them."""
    class Swapped(Blocks):
        def __getitem__(self, i):
            sample = super().__getitem__(i)
            if i == 3:
                sample["boxes"], sample["box_labels"] = np.array([[0, 0, 8, 8], box]), [1, 2]
            return sample

    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[3\]: box 1 of 'boxes' is \[.*\], whose x2 < x1 or "
                       r"y2 < y1; a box is x1, y1, x2, y2 .* x, y, width, height, as COCO's, "
                       r"take box_format='xywh'"):
        h5feed.write(Swapped([(32, 40)] * 6), tmp_path / "out.h5", max_side=512, workers=0,
                     progress=False)
    assert not list(tmp_path.iterdir())


# encoded: the image's size from its header; max_side 16: the image resized, which would drop
# each normalized box as under a pixel (the library checks them at the image's own size first).
@pytest.mark.parametrize("workers, encoded, max_side", [(0, False, 512), (2, False, 512),
                                                        (0, True, 512), (2, True, 512),
                                                        (0, False, 16), (0, True, 16)])
def test_boxes_normalized_to_0_1_are_refused_naming_the_row(tmp_path, workers, encoded,
                                                             max_side):
    """Boxes given as fractions of the image (as YOLO's and TensorFlow's data sets store them)
    would be stored as boxes under a pixel, every one of which the loader drops."""
    class Normalized(Blocks):
        def __getitem__(self, i):
            sample = super().__getitem__(i)
            if i == 4:
                sample["boxes"] = torch.tensor([[0.0, 0.0, 0.0, 0.0], [0.1, 0.25, 0.5, 0.75]])
                sample["box_labels"] = [1, 2]
            return sample

    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[4\]: boxes field \"boxes\" has every box within 0 to 1 "
                       r"\(box 1 is \[0\.1, 0\.25, 0\.5, 0\.75\]\), but its image is 32 x 40 "
                       r"\(height x width\).* the loader "
                       r"drops; give x1, y1, x2, y2 in the image's pixels \(normalized boxes times "
                       r"\[width, height, width, height\]\)"):
        h5feed.write(Normalized([(32, 40)] * 6, encoded=encoded), tmp_path / "out.h5",
                     max_side=max_side, workers=workers, progress=False)
    assert not list(tmp_path.iterdir())


def test_boxes_within_0_1_of_no_area_or_on_a_tiny_image_are_kept_as_given(tmp_path):
    """Placeholder boxes of no area, and boxes on an image of a few pixels (where 0-1 may be
    pixels), are no sign of normalized boxes; a box past 1 shows pixels."""
    samples = [{"image": np.zeros((24, 32, 3), np.uint8), "boxes": np.zeros((2, 4)),
                "box_labels": [1, 2]},
               {"image": np.zeros((3, 3, 3), np.uint8), "boxes": [[0.5, 0, 1, 1]],
                "box_labels": [3]},
               {"image": np.zeros((24, 32, 3), np.uint8), "boxes": [[0.5, 0, 1, 1.5]],
                "box_labels": [4]}]
    h5feed.write(samples, tmp_path / "out.h5", workers=0, progress=False)
    with h5py.File(tmp_path / "out.h5") as f:
        boxes = {int(source.decode()): np.frombuffer(f["boxes"][n].tobytes(), "<f4").tolist()
                 for n, source in enumerate(f["sources"][:])}
    assert boxes == {0: [0] * 8, 1: [0.5, 0, 1, 1], 2: [0.5, 0, 1, 1.5]}


def test_boxes_reach_past_the_image_are_delivered_clipped_to_it_without_augment(tmp_path):
    samples = [{"image": np.zeros((24, 32, 3), np.uint8),
                "boxes": np.array([[-5, 2, 40, 30], [3, 3, 3.5, 9]], np.float32),
                "box_labels": [7, 8]}]
    h5feed.write(samples, tmp_path / "out.h5", size=(24, 32), workers=0, progress=False)
    batch = next(iter(h5feed.Loader(tmp_path / "out.h5", 1, fields=["boxes"], as_dict=True,
                                    dtype=None)))
    # Clipped to the 32 x 24 image; the half-pixel-wide box dropped with its label.
    assert batch["boxes"].tolist() == [[[0.0, 2.0, 32.0, 24.0]]]
    assert batch["box_labels"].tolist() == [[7]]


def test_box_labels_of_whole_floats_are_stored_as_their_classes(tmp_path):
    # YOLO's label files read with np.loadtxt: the classes are float64.
    path = tmp_path / "yolo.h5"
    h5feed.write([{"image": np.zeros((32, 40, 3), np.uint8), "boxes": [[1, 2, 9, 9], [3, 3, 8, 8]],
                   "box_labels": np.array([3.0, 0.0])}], path, workers=0, progress=False)
    with h5py.File(path) as f:
        assert np.frombuffer(f["box_labels"][0].tobytes(), "<i8").tolist() == [3, 0]
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[0\]: box labels 'box_labels' are an array of float64"):
        h5feed.write([{"image": np.zeros((32, 40, 3), np.uint8), "boxes": [[1, 2, 9, 9]],
                       "box_labels": np.array([0.5])}], tmp_path / "half.h5", workers=0,
                     progress=False)


def test_boxes_classes_under_labels_are_refused_saying_box_labels(tmp_path):
    # torchvision's detection targets name the boxes' classes "labels".
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[0\] has the key 'labels', a name the file keeps for its "
                       r"own labels: the boxes' classes \(torchvision's target\['labels'\]\) "
                       r"are 'box_labels', the sample's class 'label'"):
        h5feed.write([{"image": np.zeros((32, 40, 3), np.uint8), "boxes": [[1, 2, 9, 9]],
                       "labels": [1]}], tmp_path / "labels.h5", workers=0, progress=False)
    assert not list(tmp_path.iterdir())


class TorchvisionDetection:
    """(image, target) samples as torchvision's detection datasets wrapped for transforms v2
    (wrap_dataset_for_transforms_v2) and its detection references give them: a C x H x W uint8
    tensor and a dict of boxes (K x 4 xyxy), labels (K int64) and an image_id; `extra`: more
    keys of the target."""

    def __init__(self, count, extra=None):
        self.count, self.extra = count, extra or (lambda i: {})

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        image, _, boxes, labels = block_sample(i, 24, 32)
        target = {"boxes": torch.from_numpy(boxes), "labels": torch.from_numpy(labels),
                  "image_id": i, **self.extra(i)}
        return torch.from_numpy(image).permute(2, 0, 1), target


@pytest.mark.parametrize("workers", [0, pytest.param(2, marks=pytest.mark.forks_workers)])
def test_a_detection_target_is_written_as_boxes_box_labels_and_fields_of_its_keys(tmp_path,
                                                                                   workers):
    path = tmp_path / "detection.h5"
    iscrowd = lambda i: {"iscrowd": torch.zeros(2, dtype=torch.int64)}  # one K: one shape
    h5feed.write(TorchvisionDetection(6, iscrowd), path, max_side=512, workers=workers,
                 progress=False)
    with h5py.File(path) as f:
        assert "labels" not in f  # the target is no label: a file without labels
        assert list(f["image_id"].shape) == [6] and f["iscrowd"].shape == (6, 2)
        assert f["box_labels"].attrs["h5feed_boxes"] == "boxes"
        for n, source in enumerate(f["sources"][:]):
            i = int(source.decode())
            _, _, boxes, labels = block_sample(i, 24, 32)
            assert np.array_equal(np.frombuffer(f["boxes"][n].tobytes(), "<f4").reshape(-1, 4),
                                  boxes)
            assert np.frombuffer(f["box_labels"][n].tobytes(), "<i8").tolist() == list(labels)
            assert f["image_id"][n] == i and f["iscrowd"][n].tolist() == [0, 0]


def test_a_detection_targets_per_box_values_are_box_values_or_bytes_when_fields_says(tmp_path):
    # The detection references' COCO targets: area and iscrowd, one per box, K varying: box
    # values of the boxes (test_write_box_values.py follows them through crops).
    per_box = lambda i: {"area": torch.arange(i % 3, dtype=torch.float32) + i,
                         "iscrowd": torch.zeros(i % 3, dtype=torch.int64)}
    h5feed.write(TorchvisionDetection(6, per_box), tmp_path / "values.h5", max_side=512,
                 workers=0, progress=False, shuffle=False)
    with h5py.File(tmp_path / "values.h5") as f:
        assert f["area"].attrs["h5feed_field"] == f["iscrowd"].attrs["h5feed_field"] == \
            "box_values"
        for n, i in enumerate(f["image_id"][:]):
            assert np.frombuffer(f["area"][n].tobytes(), "<f4").tolist() == \
                list(range(i, i + i % 3))
    path = tmp_path / "detection.h5"
    h5feed.write(TorchvisionDetection(6, per_box), path, max_side=512, workers=0,
                 progress=False, fields={"boxes": None, "box_labels": None, "image_id": None,
                                         "area": "bytes", "iscrowd": "bytes"})
    with h5py.File(path) as f:
        for n, i in enumerate(f["image_id"][:]):
            assert np.frombuffer(f["area"][n].tobytes(), "<f4").tolist() == \
                list(range(i, i + i % 3))
            assert np.frombuffer(f["iscrowd"][n].tobytes(), "<i8").tolist() == [0] * (i % 3)
            assert len(f["boxes"][n]) == 16 * (i % 3)


@pytest.mark.parametrize("extra, said", [
    ({"masks": torch.zeros(2, 24, 32, dtype=torch.uint8)},
     r"dataset\[\d\]'s detection target has the key 'masks': instance masks \(K x H x W\)"),
    ({"box_labels": torch.zeros(2)},
     r"detection target has the key 'box_labels': the boxes' classes are its 'labels'"),
    ({"label": 3}, r"detection target has the key 'label': a sample's image and label are not "
     r"given in its detection target"),
    ({"meta": {"file": "a.jpg"}},
     r"dataset\[\d\]: field 'meta' is a dict; .* \(the key 'meta' of its detection target, "
     r"whose keys other than 'boxes' and 'labels' are stored as fields of their names")])
def test_a_detection_target_key_that_is_no_field_is_refused_naming_it(tmp_path, extra, said):
    with pytest.raises(h5feed.InvalidArgumentError, match=said):
        h5feed.write(TorchvisionDetection(3, lambda i: extra), tmp_path / "out.h5",
                     max_side=512, workers=0, progress=False)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("of, wrong", [("nope", "which is not a field of the file"),
                                       ("attrs", "which is an array field, not boxes")])
def test_box_labels_of_a_field_that_is_not_boxes_are_refused_before_the_file(tmp_path, of,
                                                                            wrong):
    image, _, boxes, labels = block_sample(1, 24, 32)
    samples = [{"image": image, "boxes": boxes, "attrs": np.zeros(3), "classes_of": labels}]
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=rf"field 'classes_of' holds the box labels of '{of}', {wrong} "
                       r"\(the file's boxes fields: boxes\)"):
        h5feed.write(samples, tmp_path / "out.h5", max_side=512, workers=0, progress=False,
                     fields={"boxes": None, "attrs": None, "classes_of": f"box_labels of {of}"})
    assert not list(tmp_path.iterdir())


def test_fields_can_name_a_mask_and_boxes_under_other_names(tmp_path):
    class Named:
        def __len__(self):
            return 4

        def __getitem__(self, i):
            image, mask, boxes, labels = block_sample(i, 24, 32)
            return {"image": image, "seg": mask, "objects": boxes, "classes_of": labels}

    path = tmp_path / "named.h5"
    h5feed.write(Named(), path, max_side=512, workers=0, progress=False,
                 fields={"seg": "mask uint16", "objects": "boxes", "classes_of": "box_labels"})
    with h5py.File(path) as f:
        assert f["seg"].attrs["h5feed_mask_type"] == "uint16"
        assert f["classes_of"].attrs["h5feed_boxes"] == "objects"
        for n, source in enumerate(f["sources"][:]):
            i = int(source.decode())
            values = zstandard.ZstdDecompressor().decompress(f["seg"][n].tobytes())
            seg = np.frombuffer(values, "<u2").reshape(24, 32)
            assert np.array_equal(seg, block_sample(i, 24, 32)[1])


@pytest.mark.parametrize("own_size", [False, True], ids=["one_size", "own_size"])
def test_masks_are_compressed_even_where_the_images_are_not(tmp_path, own_size):
    path = tmp_path / "uncompressed.h5"
    sizing = dict(max_side=512) if own_size else dict(size=(64, 64))
    h5feed.write(Blocks([(64, 64)] * 12), path, compression="none", workers=0, progress=False,
                 **sizing)
    with h5py.File(path) as f:
        mask = f["mask"]
        if own_size:  # bytes rows, which HDF5 does not filter: each a zstd frame
            assert mask.attrs["h5feed_mask_encoding"] == "zstd"
            stored = sum(len(mask[n]) for n in range(12))
        else:  # an array filtered with zstd, where /images has no filter
            assert f["images"].id.get_create_plist().get_nfilters() == 0
            plist = mask.id.get_create_plist()
            assert [plist.get_filter(i)[0] for i in range(plist.get_nfilters())] == [32015]
            stored = mask.id.get_storage_size()
    # 8 x 8 blocks of a few classes: far smaller than their 64 x 64 bytes each.
    assert stored < 12 * 64 * 64 / 4
    loader = h5feed.Loader(path, batch_size=12, sampler="sequential", with_indices=True,
                           fields=["mask"], as_dict=True,
                           augment=h5feed.Augment(random_resized_crop=64, scale=(1.0, 1.0),
                                                  ratio=(1.0, 1.0)) if own_size else None)
    rows = stored_rows(path)
    with h5py.File(path) as f:
        sources = [int(s.decode()) for s in f["sources"][:]]
    batch = next(iter(loader))
    for i, n in enumerate(batch["indices"].tolist()):
        assert np.array_equal(batch["mask"][i].numpy(), rows[sources[n]][0])


@pytest.mark.parametrize("damage", ["flipped byte", "other size"])
def test_a_damaged_mask_row_is_refused_at_open_naming_it(tmp_path, damage):
    path = tmp_path / "damaged.h5"
    h5feed.write(Blocks([(32, 40)] * 6), path, max_side=512, workers=0, progress=False)
    with h5py.File(path, "r+") as f:
        frame = f["mask"][4].tobytes()
        if damage == "flipped byte":
            values = bytearray(zstandard.ZstdDecompressor().decompress(frame))
            values[100] ^= 0xFF
        else:
            values = bytearray(32 * 41)
        f["mask"][4] = np.frombuffer(zstandard.ZstdCompressor().compress(bytes(values)),
                                     np.uint8)
    with pytest.raises(h5feed.CorruptDataError, match=r"row 4 .*field mask"):
        h5feed.Loader(path, batch_size=3, fields=["mask"],
                      augment=h5feed.Augment(random_resized_crop=32))
