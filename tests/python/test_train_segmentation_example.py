"""examples/train_segmentation.py runs briefly: it writes a synthetic shapes data set (images and
palette masks) with h5feed.write in worker processes, trains a tiny network through
h5feed.Loader(..., fields=["mask"]) with a random resized crop and flip that move each mask with
its image, and the network's mean IoU on the test file beats the constant (all background)
prediction's: masks that did not follow their images' crops could not be learnt so."""
import os
import re

from conftest import run_python

EXAMPLE = os.environ["H5FEED_SOURCE_DIR"] + "/examples/train_segmentation.py"


def test_the_example_writes_masks_and_learns_them_through_the_crops(tmp_path):
    result = run_python([EXAMPLE, "--images", "400", "--epochs", "2", "--batch-size", "32",
                         "--workdir", tmp_path, "--workers", "2", "--threads", "2",
                         "--device", "cpu"], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "wrote 400 images with masks to" in result.stdout
    final = re.search(r"final: steps (\d+), test mean IoU ([\d.]+), constant prediction's "
                      r"([\d.]+)", result.stdout)
    assert final, result.stdout
    steps, model_iou, constant_iou = int(final[1]), float(final[2]), float(final[3])
    assert steps == 2 * (400 // 32)
    assert model_iou > constant_iou + 0.1, (model_iou, constant_iou)
