"""device="cuda" with fields (docs/gpu.md, "Fields on the device"): array fields and masks (of
files of one image size and of images at their own size) are CUDA tensors on the images' device
(uint16 and uint32 widened to int64 there), boxes, their counts and labels host tensors; every value equals the CPU run's,
batch for batch, with echo copies and two views. Labelled gpu; skipped where torch sees no CUDA
device (Debian's python3-torch is a CPU build). The C++ tests run the same comparison on the
CUDA emulation in every build (tests/lib/loader/gpu_fields_test.cpp,
gpu_geometric_fields_test.cpp)."""
import os
import subprocess

import pytest
import torch

import h5feed

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA device in torch", allow_module_level=True)

ARRAYS = ["a_bool", "a_uint8", "a_uint16", "a_uint32", "a_float16", "a_float32"]


@pytest.fixture(scope="module")
def field_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("fields") / "fields.h5"
    subprocess.run([os.environ["WRITE_FIELD_TEST_FILE"], str(path), "--images", "57",
                    "--chunk", "8"], check=True)
    return str(path)


@pytest.fixture(scope="module", params=[False, True], ids=["one_size", "own_size"])
def geometry_file(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("geometry") / "geometry.h5"
    subprocess.run([os.environ["WRITE_GEOMETRY_TEST_FILE"], str(path)] +
                   (["--own-size"] if request.param else []), check=True)
    return str(path)


def where(value):
    """Each tensor's device, and its values copied to the host (a batch's tensors are the
    loader's buffers: kept, they would stop it)."""
    if isinstance(value, tuple):
        return tuple(where(v) for v in value)
    return value.device, value.dtype, value.cpu().clone()


def run(path, device, fields, **kwargs):
    loader = h5feed.Loader(path, batch_size=8, seed=5, threads=2, as_dict=True, echo=2,
                           fields=fields, device=device, with_indices=True, **kwargs)
    batches = []
    for epoch in range(2):
        loader.set_epoch(epoch)
        for batch in loader:
            images = batch["images"][0] if isinstance(batch["images"], tuple) else batch["images"]
            kept = {key: where(batch[key]) for key in fields + ["indices"] if key in batch}
            for key in ("boxes_count", "box_labels"):
                if key in batch:
                    kept[key] = where(batch[key])
            kept["images_device"] = images.device
            batches.append(kept)
    return batches


def test_array_fields_are_device_tensors_equal_to_the_cpu_runs(field_file):
    cpu = run(field_file, "cpu", ARRAYS, augment=h5feed.Augment(random_flip=True))
    cuda = run(field_file, "cuda", ARRAYS, augment=h5feed.Augment(random_flip=True))
    assert len(cpu) == len(cuda) > 0
    for expected, got in zip(cpu, cuda):
        assert torch.equal(expected["indices"][2], got["indices"][2])
        for name in ARRAYS:
            device, dtype, values = got[name]
            assert device.type == "cuda" and device == got["images_device"], name
            assert dtype == expected[name][1], name
            assert torch.equal(values, expected[name][2]), name


def test_masks_are_cropped_on_the_device_and_boxes_stay_on_the_host(geometry_file):
    views = [h5feed.Augment(random_resized_crop=size, scale=(0.2, 1.0), random_flip=True)
             for size in [(40, 32), (16, 24)]]
    cpu = run(geometry_file, "cpu", ["mask", "boxes"], views=views)
    cuda = run(geometry_file, "cuda", ["mask", "boxes"], views=views)
    assert len(cpu) == len(cuda) > 0
    for expected, got in zip(cpu, cuda):
        for device, dtype, _ in got["mask"]:
            assert device.type == "cuda" and dtype == torch.int64  # uint16, widened
        for key in ("boxes", "boxes_count", "box_labels"):
            assert all(device.type == "cpu" for device, _, _ in got[key]), key
        for key in ("mask", "boxes", "boxes_count", "box_labels"):
            assert all(torch.equal(g[2], e[2]) for g, e in zip(got[key], expected[key])), key
        assert torch.equal(got["indices"][2], expected["indices"][2])


def test_mask_dtype_converts_device_masks_on_the_device(geometry_file):
    augment = h5feed.Augment(random_resized_crop=(40, 32), random_flip=True)
    cpu = run(geometry_file, "cpu", ["mask"], augment=augment)
    cuda = run(geometry_file, "cuda", ["mask"], augment=augment, mask_dtype=torch.int32)
    assert len(cpu) == len(cuda) > 0
    for expected, got in zip(cpu, cuda):
        device, dtype, values = got["mask"]
        assert device.type == "cuda" and dtype == torch.int32
        assert torch.equal(values.long(), expected["mask"][2])
