"""How Loader's Python arguments map onto the C++ LoaderOptions fields (h5feed/_options.py):
checked on the keyword arguments handed to the native loader, for the options the C++ side of
this build may still refuse (device, dtype, layout, augmentation: the GPU stage, issue 4)."""
import pytest
import torch

from h5feed import Augment
from h5feed._options import native_arguments

DEFAULTS = dict(batch_size=32, sampler="chunks:8", seed=0, rank=None, world_size=None,
                drop_last=False, shard_drop_last=None, cache_bytes=1 << 20, threads=None,
                slots=4, echo=1, device="cpu", dtype=torch.float32,
                memory_format=torch.contiguous_format, mean=(0.5, 0.5, 0.5), std=0.25,
                augment=None, file_locking="auto", verify_checksums=True,
                skip_corrupt_chunks=False, images=None,
                labels=None)


def arguments(**changes):
    return native_arguments(**{**DEFAULTS, **changes})


def test_defaults_are_host_float32_nchw_without_augmentation():
    args = arguments()
    assert args["normalize"] and args["output_type"] == "float32" and args["layout"] == "NCHW"
    assert (args["cuda_device"], args["cuda_stream"]) == (-1, 0)
    assert (args["rank"], args["world_size"], args["threads"]) == (0, 1, 0)
    assert args["slots"] == 4  # as given: the library adds the buffer a for loop holds
    assert args["held_batches"] == 1
    assert args["std"] == [0.25] * 3
    [spec] = args["augment"]
    assert not args["several_views"]
    assert not spec["random_flip"] and spec["center_crop"] == (0, 0)
    assert spec["random_resized_crop"] == (0, 0) and spec["resize_shorter"] == 0


@pytest.mark.parametrize("dtype,name", [(torch.float16, "float16"), (torch.bfloat16, "bfloat16")])
def test_dtype_selects_the_output_type(dtype, name):
    assert arguments(dtype=dtype)["output_type"] == name
    assert not arguments(dtype=None)["normalize"]


def test_channels_last_is_the_nhwc_layout():
    assert arguments(memory_format=torch.channels_last)["layout"] == "NHWC"


def test_augment_from_a_dict_or_an_augment_object():
    [from_dict] = arguments(augment={"random_flip": True, "random_crop_padding": 4})["augment"]
    assert from_dict["random_flip"] and from_dict["random_crop_padding"] == 4
    [crop] = arguments(augment=Augment(center_crop=(24, 20)))["augment"]
    assert crop["center_crop"] == (24, 20)
    with pytest.raises(ValueError, match="unknown keys"):
        arguments(augment={"flip": True})


def test_the_imagenet_recipe_spells_as_torchvision_does():
    [train] = arguments(augment=Augment(random_resized_crop=224, random_flip=True))["augment"]
    assert train["random_resized_crop"] == (224, 224)
    assert train["scale"] == (0.08, 1.0) and train["ratio"] == (3 / 4, 4 / 3)
    assert train["antialias"]
    [val] = arguments(augment=Augment(resize=256, center_crop=224, antialias=False))["augment"]
    assert val["resize_shorter"] == 256 and val["center_crop"] == (224, 224)
    assert not val["antialias"]
    with pytest.raises(ValueError, match="height, width"):
        arguments(augment=Augment(random_resized_crop=(1, 2, 3)))


def test_views_are_a_list_of_specs_each_with_its_count():
    args = arguments(views=[Augment(random_resized_crop=224, scale=(0.4, 1), count=2),
                            {"random_resized_crop": 96, "scale": (0.05, 0.4), "count": 6}])
    assert args["several_views"]
    assert [spec["count"] for spec in args["augment"]] == [2, 6]
    assert args["augment"][1]["random_resized_crop"] == (96, 96)
    with pytest.raises(ValueError, match="not both"):
        arguments(views=[Augment()], augment=Augment())
    with pytest.raises(ValueError, match="empty"):
        arguments(views=[])


def test_a_cuda_device_selects_its_index():
    args = arguments(device="cuda:1")
    assert args["cuda_device"] == 1
    if not torch.cuda.is_available():
        assert args["cuda_stream"] == 0  # a CPU-only torch: the library falls back to host
    else:
        assert args["cuda_stream"] == torch.cuda.current_stream(1).cuda_stream


def test_drop_last_sets_both_drops_unless_the_shard_drop_is_given():
    assert arguments(drop_last=True)["shard_drop_last"]
    args = arguments(drop_last=True, shard_drop_last=False)
    assert args["drop_last_batch"] and not args["shard_drop_last"]


def test_bad_values_are_value_errors():
    with pytest.raises(ValueError, match="dtype"):
        arguments(dtype=torch.int32)
    with pytest.raises(ValueError, match="memory_format"):
        arguments(memory_format=torch.preserve_format)
    with pytest.raises(ValueError, match="mean needs 1 or 3"):
        arguments(mean=(0.1, 0.2))
    with pytest.raises(ValueError, match="device"):
        arguments(device="meta")
