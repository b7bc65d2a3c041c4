"""h5feed.write: any Python dataset written as an h5feed file, checked against what `convert
imagefolder` writes for the same images (row for row: pixels, labels, sources), and h5py's read
of every kind of field. A row's source is its dataset index as text ("7"), or the image's path
when the sample gave a path; the tests map both to the image file they came from."""
import io
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import h5py
import numpy as np
import pytest
import torch
import torchvision
from PIL import Image

import h5feed
from conftest import stored_image


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """An ImageFolder of 3 classes, PNG and JPEG files of many sizes (some above the cap of
    max_side=64, one grayscale)."""
    root = tmp_path_factory.mktemp("write") / "images"
    rng = np.random.default_rng(0)
    for c in range(3):
        (root / f"class{c}").mkdir(parents=True)
        for i in range(24):
            height, width = (int(s) for s in rng.integers(20, 100, 2))
            pixels = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
            image = Image.fromarray(pixels).convert("L" if i == 5 else "RGB")
            image.save(root / f"class{c}" / f"{i:03d}.{'png' if i % 3 else 'jpg'}", quality=90)
    return root


@pytest.fixture(scope="module")
def png_folder(tmp_path_factory):
    """An ImageFolder of PNG files only: PIL's decoded pixels are the file's, exactly."""
    root = tmp_path_factory.mktemp("write_png") / "images"
    rng = np.random.default_rng(1)
    for c in range(4):
        (root / f"c{c}").mkdir(parents=True)
        for i in range(15):
            height, width = (int(s) for s in rng.integers(16, 90, 2))
            pixels = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
            Image.fromarray(pixels).save(root / f"c{c}" / f"{i:02d}.png")
    return root


class Paths:
    """The files of an ImageFolder as (path, label)."""

    def __init__(self, root):
        folder = torchvision.datasets.ImageFolder(root)
        self.samples, self.classes = folder.samples, folder.classes

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]


class EncodedBytes(Paths):
    def __getitem__(self, i):
        path, label = self.samples[i]
        with open(path, "rb") as f:
            return {"image": f.read(), "label": label}


def file_of(source, root, samples):
    """The file (relative to root) that row's source names: a path, or a dataset index."""
    text = source.decode()
    return os.path.relpath(samples[int(text)][0] if text.isdigit() else text, root)


def assert_same_rows(converted, written, root):
    """`written` (h5feed.write) holds what `converted` (convert imagefolder) does, row for row:
    the same image from the same file with the same label, and the same stored layout."""
    samples = torchvision.datasets.ImageFolder(root).samples
    with h5py.File(converted) as f, h5py.File(written) as g:
        assert [file_of(s, root, samples) for s in g["sources"][:]] == \
            [s.decode() for s in f["sources"][:]]
        np.testing.assert_array_equal(g["labels"][:], f["labels"][:])
        for name in ("images", "image_shapes", "image_offsets", "image_bytes"):
            if name in f:
                np.testing.assert_array_equal(g[name][:], f[name][:], err_msg=name)
        differ = {name for name in set(f.attrs) | set(g.attrs)
                  if name not in g.attrs or name not in f.attrs
                  or np.any(g.attrs[name] != f.attrs[name])}
        assert differ == {"source_kind"}, differ
        assert g.attrs["source_kind"] == "python"


@pytest.mark.parametrize("stored", [dict(size=(40, 56)), dict(size=32, resize="pad"),
                                    dict(max_side=64), dict(max_side=48, encoding="jpeg:85")])
@pytest.mark.forks_workers
def test_a_torchvision_imagefolder_writes_the_file_convert_imagefolder_writes(
        png_folder, tmp_path, stored):
    converted = tmp_path / "converted.h5"
    h5feed.convert_imagefolder(png_folder, converted, **stored)
    written = tmp_path / "written.h5"
    report = h5feed.write(torchvision.datasets.ImageFolder(png_folder), written, workers=2,
                          progress=False, **stored)
    assert report["images"] == 60 and report["own_size"] == ("size" not in stored)
    assert_same_rows(converted, written, png_folder)
    with h5py.File(written) as g:
        assert [c.decode() for c in g["classes"][:]] == ["c0", "c1", "c2", "c3"]


@pytest.mark.parametrize("dataset", [Paths, EncodedBytes])
@pytest.mark.parametrize("stored", [dict(size=(24, 24)), dict(max_side=64)])
def test_paths_and_encoded_bytes_are_decoded_as_convert_imagefolder_decodes_files(
        folder, tmp_path, dataset, stored):
    # JPEG files too: the native decoder (DCT scaling included) decodes them in both.
    converted = tmp_path / "converted.h5"
    h5feed.convert_imagefolder(folder, converted, **stored)
    written = tmp_path / "written.h5"
    h5feed.write(dataset(folder), written, workers=0 if dataset is Paths else 2,
                 progress=False, **stored)
    assert_same_rows(converted, written, folder)


def test_a_dataset_of_paths_records_each_path_as_its_source(folder, tmp_path):
    h5feed.write(Paths(folder), tmp_path / "out.h5", size=16, workers=0, progress=False)
    with h5py.File(tmp_path / "out.h5") as g:
        sources = [s.decode() for s in g["sources"][:]]
    assert sorted(sources) == sorted(path for path, _ in Paths(folder).samples)


def test_an_iterable_is_written_as_the_same_samples_in_a_list(tmp_path):
    rng = np.random.default_rng(5)
    samples = [(rng.integers(0, 256, (12, 10, 3), dtype=np.uint8), int(i % 4)) for i in range(90)]
    h5feed.write(samples, tmp_path / "list.h5", size=(12, 10), workers=0, progress=False)
    h5feed.write((s for s in samples), tmp_path / "iterable.h5", size=(12, 10), progress=False)
    with h5py.File(tmp_path / "list.h5") as f, h5py.File(tmp_path / "iterable.h5") as g:
        for name in ("images", "labels", "sources"):
            np.testing.assert_array_equal(f[name][:], g[name][:])
        rows = [int(s) for s in f["sources"][:]]
        np.testing.assert_array_equal(f["images"][:], np.stack([samples[r][0] for r in rows]))
    assert not [p for p in os.listdir(tmp_path) if "spool" in p]


class TorchSamples:
    """torch datasets (map-style and iterable) of dict samples: a tensor image (C x H x W, as
    torchvision's transforms give), a tensor label and fields of several kinds."""

    @staticmethod
    def sample(i):
        import torch
        generator = torch.Generator().manual_seed(i)
        return {"image": torch.randint(0, 256, (3, 16, 12), dtype=torch.uint8,
                                       generator=generator),
                "label": torch.tensor(i % 5), "embedding": torch.arange(4.0) + i,
                "tags": torch.tensor([i % 2, i % 3], dtype=torch.int16), "id": f"img-{i:04d}"}


def torch_map_dataset(n):
    import torch

    class MapStyle(torch.utils.data.Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            return TorchSamples.sample(i)

    return MapStyle()


def torch_iterable_dataset(n):
    import torch

    class Iterable(torch.utils.data.IterableDataset):
        def __iter__(self):
            return (TorchSamples.sample(i) for i in range(n))

    return Iterable()


@pytest.mark.forks_workers
def test_a_torch_dataset_written_by_workers_comes_back_from_h5py_and_the_loader(tmp_path):
    import torch
    out = tmp_path / "out.h5"
    report = h5feed.write(torch_map_dataset(150), out, size=(16, 12), workers=3, chunk=16,
                          progress=False)
    assert report["images"] == 150
    with h5py.File(out) as g:
        rows = [int(s) for s in g["sources"][:]]
        assert sorted(rows) == list(range(150)) and rows != list(range(150))  # shuffled
        expected = [TorchSamples.sample(r) for r in rows]
        np.testing.assert_array_equal(
            g["images"][:], np.stack([s["image"].permute(1, 2, 0).numpy() for s in expected]))
        np.testing.assert_array_equal(g["labels"][:], [r % 5 for r in rows])
        assert g["embedding"].dtype == np.float32 and g["tags"].dtype == np.int16
        np.testing.assert_array_equal(g["embedding"][:],
                                      np.stack([s["embedding"].numpy() for s in expected]))
        np.testing.assert_array_equal(g["tags"][:],
                                      np.stack([s["tags"].numpy() for s in expected]))
        assert list(g["id"].asstr()[:]) == [f"img-{r:04d}" for r in rows]
        images = g["images"][:]
    # The fields in another order than the file's, by name.
    loader = h5feed.Loader(out, 32, sampler="chunks:2", dtype=None, with_indices=True,
                           threads=2, fields=["id", "tags", "embedding"], as_dict=True)
    seen = []
    for batch in loader:
        indices = batch["indices"].tolist()
        np.testing.assert_array_equal(batch["images"].numpy(), images[indices])
        samples = [TorchSamples.sample(rows[n]) for n in indices]
        assert batch["labels"].tolist() == [rows[n] % 5 for n in indices]
        assert batch["id"] == [s["id"] for s in samples]
        assert batch["tags"].dtype == torch.int16
        assert torch.equal(batch["tags"], torch.stack([s["tags"] for s in samples]))
        assert torch.equal(batch["embedding"], torch.stack([s["embedding"] for s in samples]))
        seen += indices
    assert sorted(seen) == list(range(150))


def test_a_torch_iterable_dataset_is_written_as_the_same_samples_in_a_map_style_one(tmp_path):
    h5feed.write(torch_map_dataset(40), tmp_path / "map.h5", size=(16, 12), workers=0,
                 progress=False)
    h5feed.write(torch_iterable_dataset(40), tmp_path / "iterable.h5", size=(16, 12),
                 progress=False)
    with h5py.File(tmp_path / "map.h5") as f, h5py.File(tmp_path / "iterable.h5") as g:
        assert list(f.attrs["fields"]) == list(g.attrs["fields"]) == ["embedding", "tags", "id"]
        for name in ("images", "labels", "sources", "embedding", "tags", "id"):
            np.testing.assert_array_equal(f[name][:], g[name][:], err_msg=name)


def test_the_dataset_comes_before_the_path_and_swapped_arguments_are_refused(tmp_path):
    samples = [(np.zeros((4, 4, 3), np.uint8), 0)]
    with pytest.raises(TypeError, match=r"h5feed.write\(dataset, path\): the dataset comes "
                       r"first, then the file to write"):
        h5feed.write(str(tmp_path / "out.h5"), samples, size=4, progress=False)
    with pytest.raises(TypeError, match="the dataset comes first"):
        h5feed.write(tmp_path / "out.h5", samples, size=4, progress=False)
    assert not os.listdir(tmp_path)


def test_a_size_of_another_type_is_refused_before_an_iterable_is_read(tmp_path):
    read = []

    def samples():  # an iterable is spooled whole before the writer starts
        for i in range(3):
            read.append(i)
            yield np.zeros((4, 4, 3), np.uint8), 0
    with pytest.raises(TypeError, match=r"size=4.5: give one whole number of pixels"):
        h5feed.write(samples(), tmp_path / "out.h5", size=4.5, progress=False)
    with pytest.raises(TypeError, match=r"max_side='64': max_side takes a whole number"):
        h5feed.write(samples(), tmp_path / "out.h5", max_side="64", progress=False)
    # A switch of another type was pybind11's "Unable to cast Python instance", or its list of
    # signatures, after the iterable was read.
    for switch in ("shuffle", "overwrite", "strict"):
        with pytest.raises(TypeError, match=rf"{switch}='no': give True or False"):
            h5feed.write(samples(), tmp_path / "out.h5", progress=False, **{switch: "no"})
    assert read == [] and not os.listdir(tmp_path)


@pytest.mark.forks_workers
def test_numpy_integers_are_taken_wherever_a_count_or_a_size_is(tmp_path):
    # numpy ints (a config's values, np.int64 from arithmetic) were refused as not ints.
    report = h5feed.write([(np.zeros((4, 4, 3), np.uint8), 0)] * 6, tmp_path / "out.h5",
                          progress=False, workers=np.int64(2), memory_limit=np.int64(1 << 30),
                          chunk_bytes=np.int64(1 << 16), max_side=np.int64(8),
                          shuffle=np.bool_(False))
    assert report["images"] == 6 and report["shuffled"] is False
    with h5py.File(tmp_path / "out.h5") as f:
        assert f.attrs["chunk_bytes"] == 1 << 16


@pytest.mark.forks_workers
def test_arrays_pil_images_and_tensors_are_stored_as_given(tmp_path):
    import torch
    rng = np.random.default_rng(2)
    pixels = rng.integers(0, 256, (30, 20, 14, 3), dtype=np.uint8)

    class Mixed:
        def __len__(self):
            return 30

        def __getitem__(self, i):
            kinds = [pixels[i], Image.fromarray(pixels[i]), torch.from_numpy(pixels[i]),
                     torch.from_numpy(pixels[i]).permute(2, 0, 1)]  # torchvision's C x H x W
            return kinds[i % 4], torch.tensor(i % 3)

    h5feed.write(Mixed(), tmp_path / "out.h5", size=(20, 14), workers=2, progress=False)
    with h5py.File(tmp_path / "out.h5") as g:
        rows = [int(s) for s in g["sources"][:]]
        np.testing.assert_array_equal(g["images"][:], pixels[rows])
        np.testing.assert_array_equal(g["labels"][:], [r % 3 for r in rows])


def tv_tensor(kind, array):
    """`array` as a tensor of a subclass of torch.Tensor named as torchvision's tv_tensors (0.16
    and later; the 0.14 these tests run with has none) name theirs: what its v2 transforms
    (ToImage) and the datasets wrapped for them give."""
    subclass = type(kind, (torch.Tensor,), {"__module__": f"torchvision.tv_tensors._{kind}"})
    return torch.from_numpy(array).as_subclass(subclass)


def test_tensor_subclasses_as_torchvisions_tv_tensors_are_tensors(tmp_path):
    rng = np.random.default_rng(6)
    pixels = rng.integers(0, 256, (3, 8, 6, 3), dtype=np.uint8)
    samples = [{"image": tv_tensor("Image", np.ascontiguousarray(p.transpose(2, 0, 1))),
                "label": tv_tensor("Tensor", np.array(i)),
                "attrs": tv_tensor("Tensor", np.full(4, i, np.float32))}
               for i, p in enumerate(pixels)]
    h5feed.write(samples, tmp_path / "tv.h5", size=(8, 6), workers=0, progress=False)
    with h5py.File(tmp_path / "tv.h5") as f:
        rows = f["labels"][:]
        np.testing.assert_array_equal(f["images"][:], pixels[rows])
        assert f["attrs"].dtype == np.float32
        np.testing.assert_array_equal(f["attrs"][:], np.repeat(rows[:, None], 4, axis=1))


def test_hugging_face_undecoded_images_are_read_from_their_bytes_or_path(tmp_path):
    # datasets' Image(decode=False) gives {"bytes": ..., "path": ...}, one of them None.
    rng = np.random.default_rng(4)
    pixels = rng.integers(0, 256, (3, 12, 10, 3), dtype=np.uint8)
    for i in range(3):
        Image.fromarray(pixels[i]).save(tmp_path / f"{i}.png")
    samples = [{"image": {"bytes": (tmp_path / "0.png").read_bytes(), "path": "0.png"},
                "label": 0},
               {"image": {"bytes": None, "path": str(tmp_path / "1.png")}, "label": 1},
               {"image": {"path": tmp_path / "2.png"}, "label": 2}]
    h5feed.write(samples, tmp_path / "hf.h5", size=(12, 10), workers=0, progress=False)
    with h5py.File(tmp_path / "hf.h5") as f:
        np.testing.assert_array_equal(f["images"][:], pixels[f["labels"][:]])
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[0\]'s image is a dict whose 'bytes' and 'path' are both "
                       "None"):
        h5feed.write([{"image": {"bytes": None, "path": None}}], tmp_path / "none.h5",
                     workers=0, progress=False)


def test_a_dict_of_img_as_hugging_face_cifar10_gives_it_has_that_image(tmp_path):
    # load_dataset("cifar10") rows are {"img": PIL image, "label": int}; a dict holding 'image'
    # too keeps 'img' as a field of its own.
    pixels = np.random.default_rng(5).integers(0, 256, (4, 8, 6, 3), dtype=np.uint8)
    samples = [{"img": Image.fromarray(p), "label": i} for i, p in enumerate(pixels)]
    h5feed.write(samples, tmp_path / "cifar.h5", size=(8, 6), workers=2, progress=False)
    with h5py.File(tmp_path / "cifar.h5") as f:
        np.testing.assert_array_equal(f["images"][:], pixels[f["labels"][:]])
        assert "img" not in f
    both = [{"image": pixels[0], "img": pixels[1], "label": 0}]
    h5feed.write(both, tmp_path / "both.h5", size=(8, 6), workers=0, progress=False)
    with h5py.File(tmp_path / "both.h5") as f:
        np.testing.assert_array_equal(f["images"][0], pixels[0])
        np.testing.assert_array_equal(f["img"][0], pixels[1])
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[0\] is a dict without the key 'image' \(nor 'img'\); "
                       r"a sample dict holds 'image'.* \(its keys: 'picture', 'label'\)"):
        h5feed.write([{"picture": pixels[0], "label": 0}], tmp_path / "neither.h5",
                     workers=0, progress=False)
    assert not (tmp_path / "neither.h5").exists()


def test_rgba_arrays_and_tensors_are_stored_as_their_rgb_as_pil_images_are(tmp_path):
    # torchvision's io.read_image of a PNG with alpha is a 4 x H x W tensor.
    rgba = np.random.default_rng(2).integers(0, 256, (4, 20, 14, 4), dtype=np.uint8)
    samples = [(rgba[0], 0), (Image.fromarray(rgba[1], "RGBA"), 1),
               (torch.from_numpy(rgba[2]), 2), (torch.from_numpy(rgba[3]).permute(2, 0, 1), 3)]
    h5feed.write(samples, tmp_path / "rgba.h5", size=(20, 14), workers=0, progress=False)
    with h5py.File(tmp_path / "rgba.h5") as f:
        rows = f["labels"][:]
        np.testing.assert_array_equal(f["images"][:], rgba[rows, :, :, :3])
        np.testing.assert_array_equal(
            f["images"][list(rows).index(1)],
            np.asarray(Image.fromarray(rgba[1], "RGBA").convert("RGB")))


def test_grayscale_images_make_a_one_channel_file(tmp_path):
    rng = np.random.default_rng(3)
    gray = rng.integers(0, 256, (20, 9, 7), dtype=np.uint8)
    h5feed.write([(g, 0) for g in gray], tmp_path / "gray.h5", size=(9, 7), workers=0,
                 progress=False, shuffle=False)
    with h5py.File(tmp_path / "gray.h5") as g:
        np.testing.assert_array_equal(g["images"][:], gray[..., None])


def test_a_gray_image_written_first_among_colour_ones_leaves_the_file_colour(tmp_path):
    # ImageNet and COCO hold a few gray JPEGs: opened without convert("RGB"), one of them may be
    # the first sample written, which made every image of the file gray.
    rng = np.random.default_rng(0)
    colour = rng.integers(0, 256, (6, 9, 7, 3), dtype=np.uint8)
    samples = [(Image.fromarray(colour[0]).convert("L"), 0)] + [(c, 0) for c in colour[1:]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h5feed.write(samples, tmp_path / "mixed.h5", size=(9, 7), shuffle=False, workers=0,
                     progress=False)
    with h5py.File(tmp_path / "mixed.h5") as f:
        images = f["images"][:]
    assert images.shape == (6, 9, 7, 3)
    np.testing.assert_array_equal(images[1:], colour[1:])
    gray = np.asarray(Image.fromarray(colour[0]).convert("L"))
    np.testing.assert_array_equal(images[0], np.repeat(gray[:, :, None], 3, axis=2))


@pytest.mark.parametrize("colour_as", ["pixels", "png"])
def test_strict_refuses_a_colour_image_after_the_measured_gray_ones_naming_it(tmp_path,
                                                                             colour_as):
    rng = np.random.default_rng(0)
    gray = rng.integers(0, 256, (40, 9, 7), dtype=np.uint8)
    colour = rng.integers(0, 256, (9, 7, 3), dtype=np.uint8)
    if colour_as == "png":  # encoded, it decodes to RGB
        encoded = io.BytesIO()
        Image.fromarray(colour).save(encoded, "PNG")
        colour = encoded.getvalue()
    samples = [(g, 0) for g in gray] + [(colour, 0)] + [(g, 0) for g in gray]
    out = tmp_path / "out" / "gray.h5"
    out.parent.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused, not stored gray with a warning
        with pytest.raises(h5feed.InvalidArgumentError,
                           match=r"dataset\[40\] is a colour image, but .*gray.h5 stores gray "
                           r"images \(the first 32 samples written, from dataset\[0\], all "
                           r"were\); strict=True stores no image changed"):
            h5feed.write(samples, out, size=(9, 7), shuffle=False, workers=0, progress=False,
                         strict=True)
    assert not list(out.parent.iterdir())


def test_a_colour_image_after_the_measured_gray_ones_is_stored_gray_with_a_warning(tmp_path):
    rng = np.random.default_rng(0)
    gray = rng.integers(0, 256, (40, 9, 7), dtype=np.uint8)
    colour = rng.integers(0, 256, (9, 7, 3), dtype=np.uint8)
    samples = [(g, 0) for g in gray] + [(colour, 0)]
    with pytest.warns(UserWarning, match=r"dataset\[40\] is a colour image, but .*gray.h5 stores "
                      r"gray images \(the first 32 samples written, from dataset\[0\], all "
                      r"were\): .*image.convert\(\"RGB\"\)"):
        h5feed.write(samples, tmp_path / "gray.h5", size=(9, 7), shuffle=False, workers=0,
                     progress=False)
    with h5py.File(tmp_path / "gray.h5") as f:
        assert f["images"].shape == (41, 9, 7, 1)
        np.testing.assert_array_equal(f["images"][40, :, :, 0],
                                      np.asarray(Image.fromarray(colour).convert("L")))


def test_grayscale_images_at_their_own_size_read_back_as_one_channel(tmp_path):
    rng = np.random.default_rng(3)
    # 40 rows, 40 to 50 columns: resize=40 keeps them, and the center crop cuts w - 40 evenly.
    gray = [rng.integers(0, 256, (40, 40 + 2 * i), dtype=np.uint8) for i in range(6)]
    out = tmp_path / "gray.h5"
    h5feed.write([(g, i) for i, g in enumerate(gray)], out, workers=0, progress=False)
    loader = h5feed.Loader(out, 6, dtype=None, sampler="sequential", threads=1,
                           augment=h5feed.Augment(resize=40, center_crop=40))
    assert loader.dataset["image_shape"][2] == 1
    images, labels = next(iter(loader))
    assert tuple(images.shape) == (6, 1, 40, 40)
    # No torch computation here: thread pools torch starts in this process can deadlock the
    # workers later tests fork from it under ASan (conftest.py).
    for image, label in zip(images.numpy(), labels.numpy()):
        np.testing.assert_array_equal(image[0], gray[label][:, label:label + 40])

    # A file whose images differ in channels is refused at open, naming the first that differs.
    with h5py.File(out, "r+") as f:
        shapes = f["image_shapes"][:]
        shapes[3, 2] = 3
        f["image_shapes"][:] = shapes
    with pytest.raises(h5feed.CorruptDataError, match="image 3 .*3 channels and image 0 1"):
        h5feed.Loader(out, 6, augment=h5feed.Augment(resize=40, center_crop=40))


def test_a_file_of_one_size_written_without_size_reads_as_that_size(tmp_path):
    # torchvision's FakeData, CIFAR, or any dataset of one image size, written without size= is
    # a file of images at their own size: a Loader without an augmentation reads it as images
    # of that one size, as the file written with size= of it (nothing resized).
    rng = np.random.default_rng(5)
    images = [rng.integers(0, 256, (20, 30, 3), dtype=np.uint8) for i in range(10)]
    own = tmp_path / "own.h5"
    h5feed.write([(x, i) for i, x in enumerate(images)], own, workers=0, progress=False)
    one = tmp_path / "one.h5"
    h5feed.write([(x, i) for i, x in enumerate(images)], one, size=(20, 30), workers=0,
                 progress=False)
    with h5py.File(own, "r") as f:
        assert f.attrs["h5feed_format_version"] == 2
        stored = [stored_image(f, n) for n in range(10)]
    loader = h5feed.Loader(own, 4, dtype=None, sampler="sequential")
    assert loader.dataset["image_shape"] == [20, 30, 3]
    read = torch.cat([images for images, _ in loader])
    labels = torch.cat([labels for _, labels in loader])
    assert tuple(read.shape) == (10, 20, 30, 3)
    for row, (image, label) in enumerate(zip(read.numpy(), labels.numpy())):  # stored order
        np.testing.assert_array_equal(image, stored[row])  # h5py's read of the file
        np.testing.assert_array_equal(image, images[label])
    # Normalized and flipped as the file written with size= is.
    options = dict(sampler="sequential", augment=h5feed.Augment(random_flip=True), seed=3)
    for (a, _), (b, _) in zip(h5feed.Loader(own, 4, **options), h5feed.Loader(one, 4, **options)):
        assert torch.equal(a, b)

    # Stored as JPEG: each image decoded whole, the pixels the crop path gives of the whole image
    # (Resize to its own shorter side, CenterCrop of its own size: nothing resized).
    square = [rng.integers(0, 256, (24, 24, 3), dtype=np.uint8) for i in range(6)]
    jpeg = tmp_path / "jpeg.h5"
    h5feed.write([(x, i) for i, x in enumerate(square)], jpeg, encoding="jpeg:90", workers=0,
                 progress=False)
    with h5py.File(jpeg, "r") as f:
        assert set(f["image_encodings"][:]) == {1}
        decoded = [stored_image(f, n) for n in range(6)]
    whole, _ = next(iter(h5feed.Loader(jpeg, 6, dtype=None, sampler="sequential")))
    cropped, _ = next(iter(h5feed.Loader(jpeg, 6, dtype=None, sampler="sequential",
                                         augment=h5feed.Augment(resize=24, center_crop=24))))
    assert tuple(whole.shape) == (6, 24, 24, 3)
    assert torch.equal(whole, cropped.permute(0, 2, 3, 1))
    for row, image in enumerate(whole.numpy()):  # PIL's decode of each, within libjpeg's
        assert np.abs(image.astype(int) - decoded[row]).max() <= 2

    # Images of several sizes are still refused without a crop, with no hint of one size.
    mixed = tmp_path / "mixed.h5"
    h5feed.write([(np.zeros((20 + i, 30, 3), np.uint8), i) for i in range(3)], mixed, workers=0,
                 progress=False)
    with pytest.raises(h5feed.InvalidArgumentError) as caught:
        h5feed.Loader(mixed, 3)
    assert "random_resized_crop" in str(caught.value)
    assert "every image of it" not in str(caught.value)


def test_an_output_given_as_a_url_is_refused_as_not_a_local_path(tmp_path):
    image = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(ValueError, match="it is a URL, and h5feed writes to a local path only"):
        h5feed.write([(image, 0)], "https://host/x.h5", workers=0, progress=False)
    h5feed.write([(image, 0)], tmp_path / "in.h5", size=8, workers=0, progress=False)
    with pytest.raises(ValueError, match="is a URL, and h5feed writes to a local path only"):
        h5feed.rechunk(tmp_path / "in.h5", "s3://bucket/x.h5")


def test_a_file_of_labels_without_class_names_rechunks(tmp_path):
    image = np.full((8, 8, 3), 7, np.uint8)
    h5feed.write([(image, i % 10) for i in range(100)], tmp_path / "in.h5", size=8, workers=0,
                 progress=False)
    h5feed.rechunk(tmp_path / "in.h5", tmp_path / "out.h5", chunk=16)
    with h5py.File(tmp_path / "in.h5") as f, h5py.File(tmp_path / "out.h5") as g:
        assert len(f["classes"]) == 0
        assert sorted(g["labels"][:]) == sorted(f["labels"][:])
        assert [c.decode() for c in g["classes"][:]] == [str(c) for c in range(10)]


def test_an_image_past_max_pixels_is_skipped_naming_the_keyword(tmp_path):
    encoded = io.BytesIO()
    Image.fromarray(np.zeros((16, 16, 3), np.uint8)).save(encoded, "PNG")
    rows = [(encoded.getvalue(), 0), (np.zeros((8, 8, 3), np.uint8), 1)]
    with pytest.warns(UserWarning):
        report = h5feed.write(rows, tmp_path / "out.h5", size=8, max_pixels=100, workers=0,
                              progress=False)
    [skipped] = report["skipped"]
    assert "more than max_pixels 100 allows" in skipped["reason"]
    assert "pass a larger max_pixels" in skipped["reason"]


class Attributes:
    """Dict samples: an image, a label and fields of every kind."""

    def __init__(self, n=40, broken=None):
        rng = np.random.default_rng(4)
        self.pixels = rng.integers(0, 256, (n, 10, 12, 3), dtype=np.uint8)
        self.attrs = rng.integers(0, 2, (n, 40)).astype(np.uint8)
        self.landmarks = rng.normal(size=(n, 5, 2)).astype(np.float32)
        self.broken = broken or {}

    def __len__(self):
        return len(self.pixels)

    def __getitem__(self, i):
        sample = {"image": self.pixels[i], "label": i % 7, "attrs": self.attrs[i],
                  "landmarks": self.landmarks[i], "score": float(i) / 3,
                  "id": np.int64(1000 + i), "flag": bool(i % 2), "half": np.float16(i),
                  "caption": f"sample {i}: ü" * (i % 4), "meta": bytes(range(i % 9))}
        sample.update(self.broken.get(i, {}))
        return sample


@pytest.mark.forks_workers
@pytest.mark.parametrize("stored", [dict(size=(10, 12)), dict(max_side=8, encoding="smart")])
def test_fields_of_every_kind_come_back_from_h5py_and_the_loader_as_written(tmp_path, stored):
    dataset = Attributes()
    report = h5feed.write(dataset, tmp_path / "out.h5", workers=2, progress=False,
                          memory_limit="64M", **stored)
    assert report["images"] == 40 and report["labelled"]
    assert [(f["name"], f["type"]) for f in report["fields"]][:3] == \
        [("attrs", "uint8[40]"), ("landmarks", "float32[5,2]"), ("score", "float64")]
    expected = {"attrs": ("uint8", (40,)), "landmarks": ("float32", (5, 2)),
                "score": ("float64", ()), "id": ("int64", ()), "flag": ("bool", ()),
                "half": ("float16", ())}
    with h5py.File(tmp_path / "out.h5") as g:
        assert list(g.attrs["fields"]) == [*expected, "caption", "meta"]
        rows = [int(s) for s in g["sources"][:]]
        for name, (dtype, shape) in expected.items():
            assert g[name].dtype == np.dtype(dtype) and g[name].shape == (40, *shape), name
            assert g[name].attrs["h5feed_field"] == "array"
            values = np.stack([np.asarray(dataset[r][name]) for r in rows])
            np.testing.assert_array_equal(g[name][:], values.astype(dtype), err_msg=name)
        assert g["caption"].attrs["h5feed_field"] == "text"
        assert list(g["caption"].asstr()[:]) == [dataset[r]["caption"] for r in rows]
        assert g["meta"].attrs["h5feed_field"] == "bytes"
        assert [g["meta"][n].tobytes() for n in range(40)] == [dataset[r]["meta"] for r in rows]
        np.testing.assert_array_equal(g["labels"][:], [r % 7 for r in rows])
    # The Loader delivers every field of every row equal to the sample's.
    names = [*expected, "caption", "meta"]
    crop = {} if "size" in stored else {"augment": h5feed.Augment(resize=8, center_crop=8)}
    loader = h5feed.Loader(tmp_path / "out.h5", 16, sampler="sequential", with_indices=True,
                           threads=2, fields=names, as_dict=True, **crop)
    seen = []
    for batch in loader:
        samples = [dataset[rows[n]] for n in batch["indices"].tolist()]
        for name, (dtype, shape) in expected.items():
            values = np.stack([np.asarray(s[name]) for s in samples]).astype(dtype)
            np.testing.assert_array_equal(batch[name].numpy(), values, err_msg=name)
        assert batch["caption"] == [s["caption"] for s in samples]
        assert batch["meta"] == [s["meta"] for s in samples]
        assert batch["labels"].tolist() == [s["label"] for s in samples]
        seen += batch["indices"].tolist()
    assert seen == list(range(40))


def test_fields_given_name_the_files_fields_and_convert_numbers_that_fit(tmp_path):
    dataset = Attributes()
    h5feed.write(dataset, tmp_path / "out.h5", size=(10, 12), workers=0, progress=False,
                 fields={"caption": None, "id": "int32", "attrs": ("bool", 40),
                         "landmarks": {"kind": "array", "dtype": "float16", "shape": [5, 2]},
                         "score": "float32", "flag": "uint8", "half": "float64",
                         "meta": "bytes"})
    with h5py.File(tmp_path / "out.h5") as g:
        assert list(g.attrs["fields"]) == ["caption", "id", "attrs", "landmarks", "score",
                                           "flag", "half", "meta"]
        rows = [int(s) for s in g["sources"][:]]
        assert g["id"].dtype == np.int32 and list(g["id"][:]) == [1000 + r for r in rows]
        assert g["attrs"].dtype == bool
        np.testing.assert_array_equal(g["attrs"][:], dataset.attrs[rows].astype(bool))
        np.testing.assert_array_equal(g["landmarks"][:],
                                      dataset.landmarks[rows].astype(np.float16))
    with pytest.raises(h5feed.InvalidArgumentError, match=r"field 'id' is int64, but the field "
                       r"is uint8 \(as fields= says\)"):
        h5feed.write(dataset, tmp_path / "small.h5", size=(10, 12), workers=0, progress=False,
                     fields={"id": "uint8", "attrs": None, "landmarks": None, "score": None,
                             "flag": None, "half": None, "caption": None, "meta": None})
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"has 'landmarks', 'score', 'id', 'flag', "
                       r"'half', 'caption', 'meta', which the file has not as fields \(its "
                       r"fields: attrs, from fields=\)"):
        h5feed.write(dataset, tmp_path / "fewer.h5", size=(10, 12), workers=0, progress=False,
                     fields={"attrs": "uint8[40]"})


@pytest.mark.parametrize("stored", [dict(size=(10, 12)), dict(max_side=16)])
def test_the_fields_of_a_report_or_of_inspect_given_as_fields_write_the_same_fields(tmp_path,
                                                                                   stored):
    # "Write another file with the fields of this one": the report's dicts were refused
    # ("'uint8[40]' is not a dtype"), as inspect's were ('mask (stored as bytes)').
    class WithGeometry(Attributes):
        def __getitem__(self, i):
            return {**super().__getitem__(i), "mask": np.full((10, 12), i % 3, np.uint8),
                    "boxes": [[1, 1, 4, 4]] * (i % 2), "box_labels": [i] * (i % 2)}

    first = h5feed.write(WithGeometry(), tmp_path / "first.h5", workers=0, progress=False,
                         **stored)
    inspected = h5feed.inspect(tmp_path / "first.h5")["fields"]
    for given in (first["fields"], inspected):
        again = h5feed.write(WithGeometry(), tmp_path / "again.h5", workers=0, progress=False,
                             overwrite=True, fields={f["name"]: f for f in given}, **stored)
        assert again["fields"] == first["fields"]


def test_a_dataset_without_labels_writes_a_file_without_labels(tmp_path):
    rng = np.random.default_rng(6)
    images = rng.integers(0, 256, (25, 6, 6, 3), dtype=np.uint8)
    with pytest.warns(UserWarning, match="the file has no labels and no classes"):
        report = h5feed.write([(image,) for image in images], tmp_path / "out.h5", size=6,
                              progress=False, classes=["ignored"])
    assert report["labelled"] is False and report["fields"] == []
    with h5py.File(tmp_path / "out.h5") as g:
        assert "labels" not in g and len(g.get("classes", [])) == 0
        assert g.attrs["labelled"] == 0
        rows = [int(s) for s in g["sources"][:]]
        np.testing.assert_array_equal(g["images"][:], images[rows])
    for batch_images, labels, indices in h5feed.Loader(tmp_path / "out.h5", 10, dtype=None,
                                                       sampler="sequential", with_indices=True):
        assert labels is None  # none invented
        np.testing.assert_array_equal(batch_images.numpy(),
                                      images[[rows[n] for n in indices.tolist()]])


@pytest.mark.forks_workers
def test_a_sample_that_disagrees_with_the_first_is_refused_naming_row_and_field(tmp_path):
    out = tmp_path / "out.h5"
    broken = Attributes(broken={17: {"attrs": np.zeros(41, np.uint8)}})
    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[17\]: field 'attrs' is "
                       r"uint8\[41\], but the field is uint8\[40\] \(that of dataset\[0\], "
                       r"the first sample written\)"):
        h5feed.write(broken, out, size=(10, 12), workers=2, progress=False, shuffle=False)
    assert not os.listdir(tmp_path)
    # float64 values float32 cannot hold exactly (zeros it can: those are converted).
    wrong_type = Attributes(broken={3: {"landmarks": np.full((5, 2), 0.1, np.float64)}})
    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[3\]: field 'landmarks'"):
        h5feed.write(wrong_type, out, size=(10, 12), workers=0, progress=False, shuffle=False)
    missing = Attributes(broken={5: {"label": None}})
    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[5\] has no label"):
        h5feed.write(missing, out, size=(10, 12), workers=0, progress=False, shuffle=False)
    assert not os.listdir(tmp_path)


@pytest.mark.parametrize("value, message", [
    ([[1, 2], [3]], r"field 'f' is a list whose items differ in length"),
    (torch.ones(2, dtype=torch.bfloat16), r"field 'f' is a tensor of torch.bfloat16, which numpy"),
    ("name\udcff", r"field 'f' is a str that UTF-8 cannot encode .* at position 4"),
    ("a\x00b", r"field 'f' is a str holding a NUL character \(at 1\)"),
    (np.zeros(0), r"field 'f' is an empty array of shape \(0,\)"),
    (2**70, r"field 'f' is an int beyond 64 bits"),
    ([torch.zeros(2), torch.ones(3)], r"field 'f' is a list whose items differ in length"),
    (["cat", "dog"], r"field 'f' is a list of str \(store several strings as one str"),
    ([1.0, None], r"field 'f' is a list numpy holds as objects \(a None"),
    (Image.new("F", (4, 4)), r"field 'f' is a PIL image in mode F; .* an array field: "
                             r"np.asarray\(image\)"),
])
def test_a_field_value_h5feed_cannot_store_is_refused_naming_row_and_field(tmp_path, value,
                                                                           message):
    image = np.zeros((8, 8, 3), np.uint8)
    samples = [{"image": image, "label": 0, "f": np.ones(2, np.float32)}] * 3
    samples[2] = {"image": image, "label": 0, "f": value}
    with pytest.raises(h5feed.InvalidArgumentError, match=r"dataset\[2\]: " + message):
        h5feed.write(samples, tmp_path / "out.h5", size=8, workers=0, progress=False,
                     shuffle=False, fields={"f": None})
    assert not os.listdir(tmp_path)


def test_a_list_of_tensors_is_an_array_field_of_their_dtype(tmp_path):
    # numpy makes no array of a list of tensors of more than one element: the list was refused
    # as ragged ("items differ in length").
    points = [torch.arange(4, dtype=torch.int16).reshape(2, 2) + i for i in range(3)]
    h5feed.write([{"image": np.zeros((4, 4, 3), np.uint8), "points": points}], tmp_path / "o.h5",
                 size=4, workers=0, progress=False)
    with h5py.File(tmp_path / "o.h5") as f:
        assert f["points"].dtype == np.int16
        np.testing.assert_array_equal(f["points"][0], torch.stack(points).numpy())


def test_labels_and_field_dtypes_are_checked_against_what_write_was_given(tmp_path):
    image = np.zeros((8, 8, 3), np.uint8)
    with pytest.raises(h5feed.InvalidArgumentError,
                       match=r"dataset\[2\]'s label is 2, which names none of the 2 classes"):
        h5feed.write([(image, i) for i in range(5)], tmp_path / "out.h5", size=8, workers=0,
                     progress=False, shuffle=False, classes=["a", "b"])
    with pytest.raises(TypeError, match="give the class names as a list"):
        h5feed.write([(image, 0)], tmp_path / "out.h5", size=8, workers=0, progress=False,
                     classes="abc")
    # A torch dtype names a field's element type as numpy's does.
    h5feed.write([{"image": image, "label": 0, "f": torch.ones(2)}] * 2, tmp_path / "out.h5",
                 size=8, workers=0, progress=False, fields={"f": (torch.float32, 2)})
    with h5py.File(tmp_path / "out.h5") as f:
        assert f["f"].dtype == np.float32


def test_a_field_named_images_is_refused_with_the_library_message(tmp_path):
    samples = [{"image": np.zeros((4, 4, 3), np.uint8), "images": np.zeros(3)}]
    with pytest.raises(h5feed.InvalidArgumentError, match='a field cannot be named "images"'):
        h5feed.write(samples, tmp_path / "out.h5", size=4, workers=0, progress=False)
    with pytest.raises(h5feed.InvalidArgumentError, match='a field cannot be named "labels"'):
        h5feed.write(Attributes(), tmp_path / "out.h5", size=(10, 12), progress=False,
                     fields={"labels": "int64"})
    assert not os.listdir(tmp_path)


class Failing:
    def __init__(self, error=KeyError):
        self.error = error

    def __len__(self):
        return 50

    def __getitem__(self, i):
        if i == 23:
            raise self.error(f"no record for sample {i}")
        return np.zeros((4, 4, 3), np.uint8), 0


@pytest.mark.forks_workers
def test_an_exception_in_a_workers_getitem_is_raised_with_the_row_and_its_traceback(tmp_path):
    with pytest.raises(RuntimeError) as raised:
        h5feed.write(Failing(), tmp_path / "out.h5", size=4, workers=2, progress=False)
    message = str(raised.value)
    assert "dataset[23] raised KeyError in h5feed.write's worker process" in message
    assert "Traceback" in message and "no record for sample 23" in message
    assert "in __getitem__" in message and "test_write.py" in message
    assert not os.listdir(tmp_path)
    # A type that takes a message is raised as itself (a KeyError would print as one line).
    with pytest.raises(ValueError, match=r"dataset\[23\] raised ValueError in h5feed.write's "
                       r"worker process \d; its traceback:\nTraceback") as raised:
        h5feed.write(Failing(ValueError), tmp_path / "out.h5", size=4, workers=2,
                     progress=False)
    assert str(raised.value).rstrip().endswith("ValueError: no record for sample 23")
    assert not os.listdir(tmp_path)
    with pytest.raises(KeyError) as raised:
        h5feed.write(Failing(), tmp_path / "out.h5", size=4, workers=0, progress=False)
    assert "h5feed.write: raised by dataset[23]" in str(raised.value.__notes__)
    assert not os.listdir(tmp_path)


class Crashing:
    """dataset[23] ends its process as a crash in native code would: by SIGSEGV, or os._exit."""

    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 50

    def __getitem__(self, i):
        if i == 23:
            if self.how == "segfault":
                os.kill(os.getpid(), signal.SIGSEGV)
            os._exit(3)
        return np.zeros((4, 4, 3), np.uint8), 0


@pytest.mark.forks_workers
@pytest.mark.parametrize("how, ended", [("segfault", "killed by SIGSEGV"),
                                        ("exit", "exit code 3")])
def test_a_worker_that_dies_names_the_row_it_was_fetching_and_how_it_ended(tmp_path, how,
                                                                           ended):
    with pytest.raises(RuntimeError, match=rf"worker process \d \(pid \d+\) ended unexpectedly "
                       rf"\({ended}\) while fetching dataset\[23\];"):
        h5feed.write(Crashing(how), tmp_path / "out.h5", size=4, workers=2, progress=False)
    assert not os.listdir(tmp_path)


def test_a_dataset_spawn_cannot_pickle_is_refused_saying_what_to_do(tmp_path):
    # Under the spawn start method (macOS's and Windows' default) the workers get the dataset
    # pickled; a lambda in it was pickle's bare "Can't pickle <function <lambda>>".
    script = textwrap.dedent(f"""
        import multiprocessing, numpy as np, h5feed
        multiprocessing.set_start_method("spawn")

        class Dataset:
            def __init__(self):
                self.make = lambda i: np.full((4, 4, 3), i, np.uint8)

            def __len__(self):
                return 8

            def __getitem__(self, i):
                return self.make(i), 0

        h5feed.write(Dataset(), {str(tmp_path / "out.h5")!r}, size=4, workers=2, progress=False)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0 and "Can't pickle" in run.stderr
    assert "h5feed.write: its worker processes start by 'spawn'" in run.stderr
    assert "make the dataset picklable, or give workers=0" in run.stderr
    assert not os.listdir(tmp_path)


def test_an_image_that_does_not_decode_is_skipped_with_its_row_unless_strict(folder, tmp_path):
    class Damaged(EncodedBytes):
        def __getitem__(self, i):
            sample = super().__getitem__(i)
            if i in (4, 30):
                sample["image"] = sample["image"][:40]  # a truncated file
            return sample

    with pytest.warns(UserWarning, match=r"h5feed: skipped 4: "):
        report = h5feed.write(Damaged(folder), tmp_path / "out.h5", size=16, progress=False)
    assert report["images"] == 70 and report["inputs"] == 72
    assert sorted(s["source"] for s in report["skipped"]) == ["30", "4"]
    with h5py.File(tmp_path / "out.h5") as g:
        assert sorted(s.decode() for s in g["skipped_sources"][:]) == ["30", "4"]
        assert "4" not in {s.decode() for s in g["sources"][:]}
    with pytest.raises(h5feed.CorruptDataError, match=r"dataset\[(4|30)\]"):
        h5feed.write(Damaged(folder), tmp_path / "strict.h5", size=16, strict=True,
                     progress=False)
    assert not (tmp_path / "strict.h5").exists()


def test_an_existing_output_is_kept_unless_overwrite(tmp_path):
    out = tmp_path / "out.h5"
    out.write_bytes(b"mine")
    samples = [(np.zeros((4, 4, 3), np.uint8), 1)] * 3
    with pytest.raises(h5feed.AlreadyExistsError, match="overwrite=True"):
        h5feed.write(samples, out, size=4, workers=0, progress=False)
    assert out.read_bytes() == b"mine"
    h5feed.write(samples, out, size=4, workers=0, progress=False, overwrite=True)
    with h5py.File(out) as g:
        assert len(g["images"]) == 3


def test_progress_prints_a_line_of_samples_written_on_stderr(tmp_path, capfd):
    samples = [(np.zeros((4, 4, 3), np.uint8), 0)] * 30
    h5feed.write(samples, tmp_path / "out.h5", size=4, workers=0, progress=True)
    line = capfd.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"h5feed.write {tmp_path / 'out.h5'}: 30/30 samples (100%), "), line
    assert line.endswith("/s"), line
    h5feed.write(samples, tmp_path / "quiet.h5", size=4, workers=0, progress=False)
    assert capfd.readouterr().err == ""


def interrupt_when_ready(script, timeout=60):
    """Runs `script` in a child python3 and sends it SIGINT a second after it prints 'ready'.
    Returns (exit code, output after 'ready')."""
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=dict(os.environ))
    try:
        line = child.stdout.readline()
        assert line.strip() == "ready", line + child.stdout.read()
        time.sleep(1)
        child.send_signal(signal.SIGINT)
        output, _ = child.communicate(timeout=timeout)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, output


@pytest.mark.parametrize("workers", [0, 3])
def test_ctrl_c_stops_writing_leaves_no_file_and_ends_the_workers(tmp_path, workers):
    out = tmp_path / "out.h5"
    code, output = interrupt_when_ready(f"""
        import multiprocessing, os, sys, time
        import numpy as np
        import h5feed

        class Slow:
            def __len__(self):
                return 100000

            def __getitem__(self, i):
                if i == 0 or multiprocessing.parent_process() is None:
                    pass
                time.sleep(0.002)
                return np.full((64, 64, 3), i % 256, np.uint8), i % 10

        print("ready", flush=True)
        try:
            h5feed.write(Slow(), {str(out)!r}, size=64, workers={workers}, progress=False)
        except KeyboardInterrupt:
            print("interrupted; children:", multiprocessing.active_children(), flush=True)
            print("left:", sorted(os.listdir({str(tmp_path)!r})), flush=True)
            sys.exit(0)
        print("finished", flush=True)
        sys.exit(1)
        """)
    assert code == 0, output
    assert "interrupted; children: []" in output, output
    assert "left: []" in output, output
    assert not out.exists()


def test_a_killed_writing_leaves_no_valid_looking_file_and_its_workers_end(tmp_path):
    out, pids = tmp_path / "out.h5", tmp_path / "pids"
    pids.mkdir()
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import os, time
        import numpy as np
        import h5feed

        pool = np.random.default_rng(0).integers(0, 256, (16, 64, 64, 3), dtype=np.uint8)

        class Slow:
            def __len__(self):
                return 100000

            def __getitem__(self, i):
                open(os.path.join({str(pids)!r}, str(os.getpid())), "w").close()
                time.sleep(0.001)
                return pool[i % 16], i % 10

        h5feed.write(Slow(), {str(out)!r}, size=64, workers=2, progress=False, chunk=8)
        """)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))
    try:
        deadline = time.monotonic() + 60
        while not [p for p in os.listdir(tmp_path) if ".partial" in p and
                   os.path.getsize(tmp_path / p) > 1 << 20]:
            assert child.poll() is None and time.monotonic() < deadline, child.stdout.read()
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait()
    assert not out.exists()
    partials = [p for p in os.listdir(tmp_path) if ".partial" in p]
    assert [p for p in partials if not p.startswith(".out.h5.partial-")] == []
    for name in partials:
        try:
            with h5py.File(tmp_path / name) as f:
                assert "h5feed_format" not in f.attrs  # the format attributes come last
        except (OSError, KeyError):
            pass  # not even readable as HDF5, or its root group not yet written
        with pytest.raises(h5feed.Error):
            h5feed.Loader(tmp_path / name, 8)
    # The workers see the writing process gone (their pipe closed) and end.
    workers = [int(p) for p in os.listdir(pids) if int(p) != child.pid]
    assert len(workers) == 2
    deadline = time.monotonic() + 30
    while any(os.path.exists(f"/proc/{pid}") for pid in workers):
        assert time.monotonic() < deadline, "the workers outlived the writing process"
        time.sleep(0.1)
    # The next writing of the same output removes the dead process's leftover.
    h5feed.write([(np.zeros((4, 4, 3), np.uint8), 0)], out, size=4, progress=False)
    assert sorted(os.listdir(tmp_path)) == ["out.h5", "pids"]


def test_memory_stays_bounded_whatever_the_datasets_size(tmp_path):
    # 120,000 samples of 3 KiB (350 MiB of pixels) under a 64 MiB budget: what the writing
    # process holds grows by a fraction of that (its per-row lists: order, labels, sources).
    code = f"""
        import resource
        import numpy as np
        import h5feed

        pool = np.random.default_rng(0).integers(0, 256, (16, 32, 32, 3), dtype=np.uint8)

        class Large:
            def __init__(self, n):
                self.n = n

            def __len__(self):
                return self.n

            def __getitem__(self, i):
                return pool[i % 16].copy(), i % 100

        # Imports, HDF5, the allocator's arenas, a worker process: at rest before measuring.
        h5feed.write(Large(2000), {str(tmp_path / "warm.h5")!r}, size=32, workers=1,
                     progress=False, memory_limit="64M")
        import os; os.remove({str(tmp_path / "warm.h5")!r})
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        report = h5feed.write(Large(120000), {str(tmp_path / "out.h5")!r}, size=32, workers=1,
                              progress=False, memory_limit="64M")
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(report["images"], before // 1024, after // 1024)
        """
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, timeout=600, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    images, before_mib, after_mib = map(int, result.stdout.split())
    assert images == 120000
    assert after_mib - before_mib < 100, result.stdout


def test_a_spool_a_killed_writing_left_is_removed_by_the_next_writing_of_that_output(tmp_path):
    # SIGKILL while an iterable is being kept: its spool (the whole iterable so far, on disk)
    # was left for good; the next writing of the same output removes it, as the partial file.
    out = tmp_path / "out.h5"
    script = textwrap.dedent(f"""
        import os, signal, numpy as np, h5feed

        def samples():
            for i in range(1000):
                if i == 50:
                    os.kill(os.getpid(), signal.SIGKILL)
                yield np.zeros((8, 8, 3), np.uint8), 0

        h5feed.write(samples(), {str(out)!r}, size=8, progress=False)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120)
    assert run.returncode == -signal.SIGKILL
    left = [name for name in os.listdir(tmp_path) if ".out.h5.spool-" in name]
    assert len(left) == 1 and (tmp_path / left[0]).stat().st_size > 0
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:  # a spool of a process still running is its own, and kept
        (tmp_path / f".out.h5.spool-{alive.pid}-x").write_bytes(b"")
        h5feed.write((np.zeros((8, 8, 3), np.uint8) for _ in range(3)), out, size=8,
                     progress=False)
        assert sorted(os.listdir(tmp_path)) == [f".out.h5.spool-{alive.pid}-x", "out.h5"]
    finally:
        alive.kill()
        alive.wait()
