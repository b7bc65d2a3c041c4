"""mask_fill: the class id a segmentation mask's padding gets (docs/augment.md, "Masks and boxes
follow the image's geometry"), 255 for Pascal VOC's and Cityscapes' "ignore".

A file written by h5feed.write of coordinate images (R = x + 1, G = y + 1: a stored pixel is
never 0, so a delivered 0 is padding and any other pixel names the stored pixel it shows) and
masks of classes 1..200. Through Loader(augment=Augment(random_crop_padding=P), mask_fill=255)
each delivered mask equals torchvision's pad(mask, P, fill=255) cropped at the offset the
image shows (then hflip when the image was flipped), and the image equals pad(image, P,
fill=0) cropped and flipped alike: the image's padding stays 0. h5feed.write(resize="pad",
mask_fill=255) stores a mask's border as 255 beside a black image border."""
import warnings

import h5py
import numpy as np
import pytest
import torch
import torchvision.transforms.functional as F

import h5feed

HEIGHT, WIDTH, PADDING, SAMPLES = 24, 32, 5, 20


def stored_image(row):
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    return np.stack([x + 1, y + 1, np.full_like(x, row + 1)], axis=-1).astype(np.uint8)


def stored_mask(row):
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    return (1 + (y * WIDTH + x + row) % 200).astype(np.uint8)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A file with a mask field, and one of the same images without it."""
    folder = tmp_path_factory.mktemp("mask_fill")
    with_masks, without = str(folder / "masks.h5"), str(folder / "plain.h5")
    samples = [{"image": stored_image(r), "label": r % 3, "mask": stored_mask(r)}
               for r in range(SAMPLES)]
    h5feed.write(samples, with_masks, size=(HEIGHT, WIDTH), workers=0, progress=False)
    h5feed.write([(s["image"], s["label"]) for s in samples], without, size=(HEIGHT, WIDTH),
                 workers=0, progress=False)
    return with_masks, without


def padded_loader(path, **options):
    return h5feed.Loader(path, batch_size=8, seed=7, threads=2, sampler="sequential",
                         dtype=torch.uint8, with_indices=True, as_dict=True,
                         augment=h5feed.Augment(random_crop_padding=PADDING, random_flip=True),
                         **options)


def torchvision_crop(image, fill):
    """The delivered image's offset and flip, read from its coordinates, and torchvision's
    RandomCrop(padding=P) of the stored image (fill 0) and mask (fill `fill`) at them."""
    red, green = image[0].long(), image[1].long()
    ys, xs = torch.nonzero(red).unbind(1)  # a stored pixel: R = x + 1 > 0
    y, x = int(ys[0]), int(xs[0])
    row = red[y][red[y] > 0]
    flip = len(row) > 1 and bool(row[0] > row[-1])
    unflipped = WIDTH - 1 - x if flip else x
    top = int(green[y, x]) - 1 - y + PADDING
    left = int(red[y, x]) - 1 - unflipped + PADDING
    source = int(image[2, y, x]) - 1
    image_tv = F.crop(F.pad(torch.from_numpy(stored_image(source)).permute(2, 0, 1), PADDING,
                            fill=0), top, left, HEIGHT, WIDTH)
    mask_tv = F.crop(F.pad(torch.from_numpy(stored_mask(source))[None], PADDING, fill=fill),
                     top, left, HEIGHT, WIDTH)[0]
    if flip:
        image_tv, mask_tv = F.hflip(image_tv), F.hflip(mask_tv)
    return image_tv, mask_tv, (top, left) != (PADDING, PADDING)


@pytest.mark.parametrize("fill", [255, 0, 17])
def test_a_masks_padding_is_mask_fill_and_the_images_stays_zero_as_torchvision_pads(files, fill):
    path, _ = files
    options = {} if fill == 0 else {"mask_fill": fill}  # 0: the default, as before
    loader = padded_loader(path, fields=["mask"], **options)
    samples = padded = 0
    for epoch in range(2):
        loader.set_epoch(epoch)
        for batch in loader:
            for i, row in enumerate(batch["indices"].tolist()):
                image, mask = batch["images"][i], batch["mask"][i]
                expected_image, expected_mask, shifted = torchvision_crop(image, fill)
                assert torch.equal(image, expected_image), row
                assert torch.equal(mask, expected_mask), row
                outside = image[0] == 0
                assert torch.all(mask[outside] == fill)
                assert torch.all((mask[~outside] >= 1) & (mask[~outside] <= 200))
                samples += 1
                padded += shifted
    assert samples == 2 * SAMPLES and padded > samples // 2


def test_mask_fill_changes_the_padding_only(files):
    path, _ = files

    def run(**options):
        return [{k: batch[k].clone() for k in ("images", "mask")}
                for batch in padded_loader(path, fields=["mask"], **options)]

    for plain, filled in zip(run(), run(mask_fill=255)):
        assert torch.equal(plain["images"], filled["images"])
        outside = plain["images"][:, 0] == 0
        assert torch.all(plain["mask"][outside] == 0) and torch.all(filled["mask"][outside] == 255)
        assert torch.equal(plain["mask"][~outside], filled["mask"][~outside])
        assert outside.any()


def test_device_cuda_pads_masks_with_mask_fill_as_the_cpu_does(files):
    """On a GPU the masks are cropped on the device; where none is usable the loader says so
    and delivers host batches: either way each mask is the CPU run's."""
    path, _ = files

    def run(device):
        with warnings.catch_warnings():  # where no device is usable: saying so, host batches
            warnings.simplefilter("ignore")
            loader = h5feed.Loader(path, batch_size=8, seed=7, threads=2, device=device, echo=2,
                                   slots=4, as_dict=True, with_indices=True, fields=["mask"],
                                   mask_fill=255, augment=h5feed.Augment(
                                       random_crop_padding=PADDING, random_flip=True))
            return [(batch["indices"].clone(), batch["mask"].cpu().clone()) for batch in loader]

    cpu, cuda = run("cpu"), run("cuda")
    assert len(cpu) == len(cuda) > 0
    for (rows, mask), (cuda_rows, cuda_mask) in zip(cpu, cuda):
        assert torch.equal(rows, cuda_rows) and torch.equal(mask, cuda_mask)
    assert any(bool((mask == 255).any()) for _, mask in cpu)


def test_a_file_without_masks_takes_mask_fill_and_delivers_the_same_images(files):
    _, plain = files
    first = next(iter(padded_loader(plain)))["images"].clone()
    filled = next(iter(padded_loader(plain, mask_fill=255)))["images"]
    assert torch.equal(first, filled)
    assert bool((first == 0).any())  # padding there, 0 as before


@pytest.mark.parametrize("value, error, words", [
    (256, h5feed.InvalidArgumentError, r"mask_fill is 256; it must be in \[0, 255\]"),
    (-1, h5feed.InvalidArgumentError, r"mask_fill is -1; it must be in \[0, 255\]"),
    (2.5, TypeError, r"mask_fill=2.5: mask_fill takes an int, not a float"),
    ("255", TypeError, r"mask_fill='255': mask_fill takes an int, not a str"),
    (True, TypeError, r"mask_fill=True: mask_fill takes an int, not a bool"),
])
def test_a_mask_fill_outside_0_to_255_or_not_an_int_is_refused_naming_it(files, value, error,
                                                                          words):
    path, _ = files
    with pytest.raises(error, match=words):
        padded_loader(path, fields=["mask"], mask_fill=value)


def test_write_pads_a_masks_border_with_mask_fill_and_the_images_with_black(tmp_path):
    # A 12 x 32 image fitted to 24 x 32 by resize="pad" lands unscaled on rows 6..17.
    image = stored_image(0)[:12]
    mask = stored_mask(0)[:12]
    for fill in (0, 255):
        path = tmp_path / f"pad{fill}.h5"
        h5feed.write([{"image": image, "mask": mask}], path, size=(HEIGHT, WIDTH),
                     resize="pad", mask_fill=fill, workers=0, progress=False)
        with h5py.File(path) as f:
            stored, stored_image_ = f["mask"][0], f["images"][0]
        expected = F.pad(torch.from_numpy(mask)[None], [0, 6, 0, 6], fill=fill)[0].numpy()
        np.testing.assert_array_equal(stored, expected)
        np.testing.assert_array_equal(stored_image_[6:18], image)
        assert not stored_image_[:6].any() and not stored_image_[18:].any()
    with pytest.raises(ValueError, match="mask_fill=300 is out of range"):
        h5feed.write([{"image": image, "mask": mask}], tmp_path / "bad.h5", size=(HEIGHT, WIDTH),
                     resize="pad", mask_fill=300, workers=0, progress=False)
    with pytest.raises(TypeError, match="mask_fill takes an int from 0 to 255"):
        h5feed.write([{"image": image, "mask": mask}], tmp_path / "bad.h5", size=(HEIGHT, WIDTH),
                     resize="pad", mask_fill=1.0, workers=0, progress=False)
    assert not (tmp_path / "bad.h5").exists()
