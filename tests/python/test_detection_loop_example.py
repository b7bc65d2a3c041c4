"""examples/detection_loop.py runs briefly: it writes synthetic rectangles with their boxes and
classes through h5feed.write, reads them with h5feed.Loader(..., fields=["boxes"],
boxes_as_list=True) under a random resized crop and flip, and trains torchvision's Faster
R-CNN on the lists it yields. The centre of every delivered box has its class's colour in the
delivered image (boxes that missed the crops would land on the background), and the loss
falls."""
import os
import re

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
