"""examples/detection_loop.py runs briefly: it writes synthetic rectangles with their boxes and
classes through h5feed.write, reads them with h5feed.Loader(..., fields=["boxes"],
boxes_as_list=True) under a random resized crop and flip, and trains torchvision's Faster
R-CNN on the lists it yields. The centre of every delivered box has its class's colour in the
delivered image (boxes that missed the crops would land on the background), and the loss
falls. Given a file (--file), its classes come from its /box_classes table or --classes, and
a box label the model has no class for stops the example naming its row."""
import os
import re

import h5py
import numpy as np

import h5feed
from conftest import run_python

EXAMPLE = os.environ["H5FEED_SOURCE_DIR"] + "/examples/detection_loop.py"


def test_the_example_feeds_boxes_that_follow_the_crops_to_a_detector(tmp_path):
    result = run_python([EXAMPLE, "--images", "100", "--steps", "12", "--batch-size", "4",
                         "--workdir", tmp_path, "--threads", "2", "--device", "cpu"],
                        timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "wrote 100 images with boxes to" in result.stdout
    final = re.search(r"final: steps (\d+), first loss ([\d.]+), last loss ([\d.]+)",
                      result.stdout)
    assert final, result.stdout
    assert int(final[1]) == 12
    assert float(final[3]) < float(final[2]), result.stdout
    boxes = re.search(r"boxes on their shapes: (\d+) of (\d+)", result.stdout)
    assert boxes, result.stdout
    agreeing, checked = int(boxes[1]), int(boxes[2])
    assert checked >= 12 * 4 and agreeing == checked, result.stdout


class FiveClassBoxes:
    """8 images of 64 x 64, each with one box whose label is its index modulo 5."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return {"image": np.full((64, 64, 3), 40 * (i % 5), np.uint8),
                "boxes": np.array([[8, 8, 40, 48]], np.float32),
                "box_labels": np.array([i % 5], np.int64)}


def test_a_files_classes_come_from_its_table_and_labels_beyond_classes_are_named(tmp_path):
    path = tmp_path / "five.h5"
    h5feed.write(FiveClassBoxes(), path, size=64, workers=0, progress=False)
    common = [EXAMPLE, "--file", path, "--steps", "1", "--batch-size", "8", "--crop", "64",
              "--threads", "2", "--device", "cpu"]
    # No /box_classes table (h5feed.write makes none): the example asks for --classes.
    result = run_python(common, timeout=300)
    assert result.returncode != 0
    assert "has no /box_classes table" in result.stderr and "--classes" in result.stderr
    # Too few classes: the row and its labels named, not torchvision's "Target 4 is out of
    # bounds" from inside its loss.
    result = run_python(common + ["--classes", "3"], timeout=300)
    assert result.returncode != 0
    assert re.search(r"step 0: row \d+'s box labels \[[34]\] are not all in 0\.\.2",
                     result.stderr), result.stderr
    # The table that `convert coco` writes gives the count.
    with h5py.File(path, "r+") as f:
        f.create_dataset("box_classes", data=[f"class {k}" for k in range(5)],
                         dtype=h5py.string_dtype())
    result = run_python(common, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "final: steps 1" in result.stdout
