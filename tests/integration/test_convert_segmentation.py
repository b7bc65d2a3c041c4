"""`h5feed convert segmentation IMAGES_DIR MASKS_DIR OUT` on a synthetic Pascal VOC layout
(JPEGImages/*.jpg, SegmentationClass/*.png palette masks with VOC's 255 borders, an image
without a mask, a mask of the wrong size, a mask without an image): every stored mask, read
back with h5py as docs/format.md shows, equals its source mask after the conversion's resize,
computed here independently (torch's nearest interpolation, which torchvision's
InterpolationMode.NEAREST is, on the crop box of the documented center-crop rule)."""
import json

import h5py
import numpy as np
import pytest
import torch
import torchvision.transforms.functional as F
import zstandard
from PIL import Image

from conftest import run_h5feed

# name: (height, width) of image and mask; None for a missing mask
SIZES = {"2007_000032": (40, 60), "2007_000033": (50, 30), "2007_000039": (33, 47),
         "2007_000042": (24, 24), "2007_000061": (45, 45)}
NO_MASK = "2007_000042"
WRONG_SIZE = "2007_000039"
VOC_PALETTE = [v for i in range(256) for v in ((i * 37) % 256, (i * 91) % 256, (i * 53) % 256)]


def palette_mask(values):
    """A VOC-style mask: a mode "P" image whose indices are the class ids."""
    mask = Image.frombytes("P", (values.shape[1], values.shape[0]), values.tobytes())
    mask.putpalette(VOC_PALETTE)
    return mask


@pytest.fixture(scope="module")
def voc(tmp_path_factory):
    """The folder and each paired image's source mask."""
    root = tmp_path_factory.mktemp("voc")
    (root / "JPEGImages").mkdir()
    (root / "SegmentationClass").mkdir()
    rng = np.random.default_rng(3)
    masks = {}
    for name, (h, w) in SIZES.items():
        pixels = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(root / "JPEGImages" / f"{name}.jpg", quality=90)
        if name == NO_MASK:
            continue
        values = rng.integers(0, 21, (h, w), dtype=np.uint8)
        values[0, :] = values[:, -1] = 255  # VOC's void border: a class id kept as it is
        if name == WRONG_SIZE:
            values = values[:-1]
        if name == "2007_000061":  # a 4-bit palette PNG: indices packed two to a byte
            values %= 16
            palette_mask(values).save(root / "SegmentationClass" / f"{name}.png", bits=4)
        else:
            palette_mask(values).save(root / "SegmentationClass" / f"{name}.png")
        masks[name + ".jpg"] = values
    palette_mask(np.zeros((5, 5), np.uint8)).save(root / "SegmentationClass" / "orphan.png")
    return root, masks


def convert(voc, out, *options, check=3):
    root, _ = voc
    result = run_h5feed("convert", "segmentation", root / "JPEGImages",
                        root / "SegmentationClass", out, "--json", "--seed", 4, *options,
                        check=check)
    return json.loads(result.stdout) if check in (0, 3) else result


def stored_masks(path):
    """Each stored image's source name -> its mask, read as docs/format.md shows."""
    masks = {}
    with h5py.File(path) as f:
        sources = [s.decode() for s in f["sources"][:]]
        for n, source in enumerate(sources):
            if "image_shapes" in f:  # version 2: a zstd frame of the values a row
                h, w, _ = f["image_shapes"][n]
                dtype = np.dtype(f["mask"].attrs["h5feed_mask_type"]).newbyteorder("<")
                values = f["mask"][n].tobytes()
                if f["mask"].attrs.get("h5feed_mask_encoding") == "zstd":
                    values = zstandard.ZstdDecompressor().decompress(values)
                masks[source] = np.frombuffer(values, dtype).reshape(h, w)
            else:
                masks[source] = f["mask"][n]
    return masks


def nearest(mask, height, width):
    """torchvision's NEAREST resize: torch's nearest interpolation."""
    t = torch.from_numpy(mask.astype(np.int32))[None, None].float()
    out = torch.nn.functional.interpolate(t, size=(height, width), mode="nearest")
    return out[0, 0].to(torch.int32).numpy().astype(mask.dtype)


def center_crop_box(h, w, th, tw):
    """The part of an h x w image that `--resize crop` scales to th x tw: the shorter side
    (relative to the target) kept whole, the other cropped to the target's aspect, centered."""
    if th * w >= tw * h:  # the height binds: keep every row
        cw = min(max((tw * h + th // 2) // th, 1), w)
        return 0, (w - cw) // 2, h, cw
    ch = min(max((th * w + tw // 2) // tw, 1), h)
    return (h - ch) // 2, 0, ch, w


def test_masks_at_their_own_size_are_stored_as_they_are_255_kept(voc, tmp_path):
    report = convert(voc, tmp_path / "out.h5")
    _, masks = voc
    assert report["format_version"] == 2 and report["labelled"] is False
    assert report["fields"] == [{"name": "mask", "kind": "mask", "type": "mask uint8"}]
    assert report["images"] == 3 and report["inputs"] == 5
    stored = stored_masks(tmp_path / "out.h5")
    assert sorted(stored) == sorted(set(masks) - {WRONG_SIZE + ".jpg"})
    for name, mask in stored.items():
        np.testing.assert_array_equal(mask, masks[name])
        assert mask[0, 0] == (15 if name == "2007_000061.jpg" else 255)  # 4 bits: 15


def test_an_image_without_a_mask_and_a_mask_of_another_size_are_skipped_with_reasons(voc,
                                                                                    tmp_path):
    report = convert(voc, tmp_path / "out.h5")
    reasons = {s["source"]: s["reason"] for s in report["skipped"]}
    assert set(reasons) == {NO_MASK + ".jpg", WRONG_SIZE + ".jpg"}
    assert "no mask" in reasons[NO_MASK + ".jpg"] and NO_MASK + ".png" in reasons[NO_MASK + ".jpg"]
    assert "32x47" in reasons[WRONG_SIZE + ".jpg"] and "33x47" in reasons[WRONG_SIZE + ".jpg"]
    assert any("orphan.png" in note for note in report["notes"])
    with h5py.File(tmp_path / "out.h5") as f:
        assert sorted(s.decode() for s in f["skipped_sources"][:]) == sorted(reasons)
        assert "labels" not in f
    strict = convert(voc, tmp_path / "strict.h5", "--strict", check=1)
    assert NO_MASK in strict.stderr or WRONG_SIZE in strict.stderr
    assert not (tmp_path / "strict.h5").exists()


def test_a_capped_image_takes_its_mask_resized_by_nearest_neighbour(voc, tmp_path):
    convert(voc, tmp_path / "out.h5", "--max-side", 20)
    _, masks = voc
    for name, mask in stored_masks(tmp_path / "out.h5").items():
        h, w = masks[name].shape
        th, tw = (20, max(1, w * 20 // h)) if h >= w else (max(1, h * 20 // w), 20)
        np.testing.assert_array_equal(mask, nearest(masks[name], th, tw), err_msg=name)


def padded(mask, th, tw):
    """`--resize pad`: the mask scaled to fit inside th x tw (the side that binds whole, the
    other rounded), centered on zeros."""
    h, w = mask.shape
    if th * w <= tw * h:  # the height binds
        ih, iw = th, min(max((w * th + h // 2) // h, 1), tw)
    else:
        ih, iw = min(max((h * tw + w // 2) // w, 1), th), tw
    out = np.zeros((th, tw), mask.dtype)
    top, left = (th - ih) // 2, (tw - iw) // 2
    out[top:top + ih, left:left + iw] = nearest(mask, ih, iw)
    return out


@pytest.mark.parametrize("resize", ["crop", "stretch", "pad"])
def test_a_fixed_size_file_holds_each_mask_fitted_with_its_image(voc, tmp_path, resize):
    report = convert(voc, tmp_path / "out.h5", "--size", "20x24", "--resize", resize)
    assert report["format_version"] == 1 and report["image_shape"] == [20, 24, 3]
    _, masks = voc
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["mask"].shape == (3, 20, 24) and f["mask"].dtype == np.uint8
    for name, mask in stored_masks(tmp_path / "out.h5").items():
        source = masks[name]
        if resize == "crop":
            top, left, ch, cw = center_crop_box(*source.shape, 20, 24)
            source = source[top:top + ch, left:left + cw]
        expected = padded(source, 20, 24) if resize == "pad" else nearest(source, 20, 24)
        np.testing.assert_array_equal(mask, expected, err_msg=name)


def test_mask_fill_255_fills_the_masks_border_under_resize_pad_as_torchvision_pads(voc,
                                                                                   tmp_path):
    """--mask-fill 255: the border `--resize pad` adds is VOC's "ignore" in the mask, which
    equals torchvision's pad(nearest resize, fill=255); the image's border stays black and
    its pixels are the run's without the option."""
    convert(voc, tmp_path / "zero.h5", "--size", "20x24", "--resize", "pad")
    convert(voc, tmp_path / "ignore.h5", "--size", "20x24", "--resize", "pad", "--mask-fill", 255)
    _, masks = voc
    zero, ignore = stored_masks(tmp_path / "zero.h5"), stored_masks(tmp_path / "ignore.h5")
    borders = 0
    for name, mask in ignore.items():
        inside = padded(np.full_like(masks[name], 7), 20, 24) == 7  # the image's place
        fitted = padded(masks[name], 20, 24)[inside.any(1)][:, inside.any(0)]
        top, left = np.nonzero(inside.any(1))[0][0], np.nonzero(inside.any(0))[0][0]
        pad = [int(left), int(top), 24 - left - fitted.shape[1], 20 - top - fitted.shape[0]]
        expected = F.pad(torch.from_numpy(fitted)[None], pad, fill=255)[0].numpy()
        np.testing.assert_array_equal(mask, expected, err_msg=name)
        np.testing.assert_array_equal(zero[name][~inside], 0)
        np.testing.assert_array_equal(zero[name][inside], mask[inside])
        borders += int((~inside).sum())
    assert borders > 0
    with h5py.File(tmp_path / "zero.h5") as a, h5py.File(tmp_path / "ignore.h5") as b:
        np.testing.assert_array_equal(a["images"][:], b["images"][:])


@pytest.mark.parametrize("value", ["256", "-1", "2.5", "void"])
def test_a_mask_fill_outside_0_to_255_is_refused_naming_the_option(voc, tmp_path, value):
    result = convert(voc, tmp_path / "out.h5", "--size", "20x24", "--resize", "pad",
                     "--mask-fill", value, check=None)
    assert result.returncode == 2 and "--mask-fill" in result.stderr
    assert not (tmp_path / "out.h5").exists()


def test_python_mask_fill_writes_what_the_command_writes(voc, tmp_path):
    h5feed = pytest.importorskip("h5feed")
    root, _ = voc
    with pytest.warns(UserWarning, match=NO_MASK):
        h5feed.convert_segmentation(root / "JPEGImages", root / "SegmentationClass",
                                    tmp_path / "py.h5", size=(20, 24), resize="pad", seed=4,
                                    mask_fill=255)
    convert(voc, tmp_path / "cli.h5", "--size", "20x24", "--resize", "pad", "--mask-fill", 255)
    with h5py.File(tmp_path / "py.h5") as ours, h5py.File(tmp_path / "cli.h5") as theirs:
        for name in ("images", "mask", "sources"):
            np.testing.assert_array_equal(ours[name][:], theirs[name][:])
        assert (ours["mask"][:] == 255).any()
    for value, error in ((256, ValueError), (-1, ValueError), (2.5, TypeError),
                         (True, TypeError)):
        with pytest.raises(error, match=f"mask_fill={value!r}"):
            h5feed.convert_segmentation(root / "JPEGImages", root / "SegmentationClass",
                                        tmp_path / "bad.h5", size=(20, 24), resize="pad",
                                        mask_fill=value)
    assert not (tmp_path / "bad.h5").exists()


def test_an_image_list_converts_only_the_images_it_names(voc, tmp_path):
    root, masks = voc
    listed = tmp_path / "train.txt"
    listed.write_text("2007_000061\n2007_000032\n")
    report = convert(voc, tmp_path / "out.h5", "--image-list", listed, check=0)
    assert report["inputs"] == 2 and report["skipped"] == [] and report["notes"] == []
    assert sorted(stored_masks(tmp_path / "out.h5")) == ["2007_000032.jpg", "2007_000061.jpg"]
    listed.write_text("2007_000032\n2008_000001\n")
    result = convert(voc, tmp_path / "bad.h5", "--image-list", listed, check=1)
    assert "2008_000001" in result.stderr


def test_16_bit_gray_masks_make_a_uint16_field(tmp_path):
    images, masks = tmp_path / "images", tmp_path / "masks"
    images.mkdir()
    masks.mkdir()
    rng = np.random.default_rng(5)
    values = {}
    for i in range(3):
        Image.fromarray(rng.integers(0, 256, (9, 13, 3), dtype=np.uint8)).save(images / f"{i}.png")
        values[f"{i}.png"] = rng.integers(0, 3000, (9, 13), dtype=np.uint16)
        Image.fromarray(values[f"{i}.png"]).save(masks / f"{i}_gtFine_labelIds.png")
    report = json.loads(run_h5feed("convert", "segmentation", images, masks, tmp_path / "o.h5",
                                   "--mask-suffix", "_gtFine_labelIds", "--json", check=0).stdout)
    assert report["fields"][0]["type"] == "mask uint16"
    for name, mask in stored_masks(tmp_path / "o.h5").items():
        assert mask.dtype == np.dtype("<u2")
        np.testing.assert_array_equal(mask, values[name])


def test_rgb_masks_are_refused_as_colours_not_class_ids(tmp_path):
    images, masks = tmp_path / "images", tmp_path / "masks"
    images.mkdir()
    masks.mkdir()
    for i in range(2):
        Image.new("RGB", (8, 6)).save(images / f"{i}.jpg")
        Image.new("RGB" if i else "L", (8, 6)).save(masks / f"{i}.png")
    report = json.loads(run_h5feed("convert", "segmentation", images, masks, tmp_path / "o.h5",
                                   "--json", check=3).stdout)
    assert report["images"] == 1
    assert "class ids" in report["skipped"][0]["reason"]


def test_one_folder_of_images_and_suffixed_masks_pairs_each_image_with_its_mask(tmp_path):
    # x.png beside x_mask.png: each gray image was taken as its own mask (silently wrong
    # classes), and the masks were skipped as images without masks.
    folder = tmp_path / "data"
    folder.mkdir()
    rng = np.random.default_rng(6)
    values = {}
    for i in range(3):
        Image.fromarray(rng.integers(0, 256, (9, 13), dtype=np.uint8)).save(folder / f"{i}.png")
        values[f"{i}.png"] = rng.integers(0, 4, (9, 13), dtype=np.uint8)
        Image.fromarray(values[f"{i}.png"]).save(folder / f"{i}_mask.png")
    report = json.loads(run_h5feed("convert", "segmentation", folder, folder, tmp_path / "o.h5",
                                   "--mask-suffix", "_mask", "--json", check=0).stdout)
    assert report["images"] == 3 and not report["skipped"]
    stored = stored_masks(tmp_path / "o.h5")
    assert sorted(stored) == sorted(values)
    for name, mask in stored.items():
        np.testing.assert_array_equal(mask, values[name])


def test_a_missing_mask_names_the_file_looked_for_with_the_mask_suffix(tmp_path):
    images, masks = tmp_path / "images", tmp_path / "masks"
    images.mkdir()
    masks.mkdir()
    for i in range(2):
        Image.new("RGB", (8, 6)).save(images / f"{i}_leftImg8bit.png")
    Image.new("L", (8, 6)).save(masks / "0_gtFine_labelIds.png")
    report = json.loads(run_h5feed("convert", "segmentation", images, masks, tmp_path / "o.h5",
                                   "--image-suffix", "_leftImg8bit", "--mask-suffix",
                                   "_gtFine_labelIds", "--json", check=3).stdout)
    assert "(looked for 1_gtFine_labelIds.png)" in report["skipped"][0]["reason"]


def test_1_bit_masks_store_0_and_1_as_pil_reads_them(tmp_path):
    images, masks = tmp_path / "images", tmp_path / "masks"
    images.mkdir()
    masks.mkdir()
    rng = np.random.default_rng(7)
    Image.new("RGB", (13, 9)).save(images / "a.png")
    bits = rng.integers(0, 2, (9, 13), dtype=np.uint8)
    Image.fromarray(bits * 255).convert("1").save(masks / "a.png")  # a 1-bit gray PNG
    run_h5feed("convert", "segmentation", images, masks, tmp_path / "o.h5", check=0)
    np.testing.assert_array_equal(stored_masks(tmp_path / "o.h5")["a.png"], bits)
    np.testing.assert_array_equal(np.array(Image.open(masks / "a.png")), bits)


def test_a_mask_larger_than_the_memory_limit_lends_is_refused_naming_the_option(tmp_path):
    # Masks were decoded outside --memory-limit: 6000 x 6000 uint16 masks on 2 threads took
    # 674 MB with a limit of 256M. Their decode is now lent by the budget, as an image's is.
    images, masks = tmp_path / "images", tmp_path / "masks"
    images.mkdir()
    masks.mkdir()
    Image.new("RGB", (3000, 4000)).save(images / "big.jpg")
    Image.fromarray(np.zeros((4000, 3000), np.uint16)).save(masks / "big.png")
    Image.new("RGB", (30, 40)).save(images / "small.jpg")
    Image.fromarray(np.zeros((40, 30), np.uint16)).save(masks / "small.png")
    report = json.loads(run_h5feed("convert", "segmentation", images, masks, tmp_path / "o.h5",
                                   "--memory-limit", "40M", "--chunk-bytes", "1M", "--json",
                                   check=3).stdout)
    assert report["images"] == 1
    reason = report["skipped"][0]["reason"]
    assert "refused mask" in reason and "4000 x 3000 values" in reason
    assert "raise --memory-limit" in reason
    report = json.loads(run_h5feed("convert", "segmentation", images, masks, tmp_path / "o.h5",
                                   "--json", "--force", check=0).stdout)
    assert report["images"] == 2


def test_folders_that_share_no_name_are_refused_naming_the_front_ends_options(tmp_path):
    images, masks = tmp_path / "images", tmp_path / "masks"
    images.mkdir()
    masks.mkdir()
    Image.new("RGB", (8, 6)).save(images / "x_leftImg8bit.png")
    Image.new("L", (8, 6)).save(masks / "x_gtFine_labelIds.png")
    result = run_h5feed("convert", "segmentation", images, masks, tmp_path / "o.h5", check=1)
    assert "give --image-suffix / --mask-suffix" in result.stderr
    h5feed = pytest.importorskip("h5feed")
    with pytest.raises(h5feed.InvalidArgumentError, match="give image_suffix / mask_suffix"):
        h5feed.convert_segmentation(images, masks, tmp_path / "o.h5")


def test_the_loader_reads_the_mask_field(voc, tmp_path):
    h5feed = pytest.importorskip("h5feed")
    convert(voc, tmp_path / "out.h5", "--size", "20x24")
    stored = stored_masks(tmp_path / "out.h5")
    with h5py.File(tmp_path / "out.h5") as f:
        sources = [s.decode() for s in f["sources"][:]]
    loader = h5feed.Loader(str(tmp_path / "out.h5"), batch_size=3, sampler="sequential",
                           with_indices=True, as_dict=True, fields=["mask"])
    batch = next(iter(loader))
    for i, n in enumerate(batch["indices"].tolist()):
        np.testing.assert_array_equal(batch["mask"][i].cpu().numpy(), stored[sources[n]])


def test_python_writes_what_the_command_writes(voc, tmp_path):
    h5feed = pytest.importorskip("h5feed")
    root, _ = voc
    with pytest.warns(UserWarning, match=NO_MASK):
        report = h5feed.convert_segmentation(root / "JPEGImages", root / "SegmentationClass",
                                             tmp_path / "py.h5", size=(20, 24), seed=4)
    convert(voc, tmp_path / "cli.h5", "--size", "20x24")
    assert report["images"] == 3 and len(report["skipped"]) == 2
    with h5py.File(tmp_path / "py.h5") as ours, h5py.File(tmp_path / "cli.h5") as theirs:
        for name in ("images", "mask", "sources"):
            np.testing.assert_array_equal(ours[name][:], theirs[name][:])
    with pytest.raises(ValueError, match="max_side"):
        h5feed.convert_segmentation(root / "JPEGImages", root / "SegmentationClass",
                                    tmp_path / "bad.h5", size=20, max_side=30)
