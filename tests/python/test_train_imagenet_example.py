"""examples/train_imagenet.py runs end to end on a few generated photos: it splits and converts
the folder, trains a ResNet-18 through h5feed's random resized crops and evaluates top-1 on the
validation resize, in seconds (tiny crops, a dozen steps)."""
import math
import os
import re

from conftest import run_python

EXAMPLE = os.environ["H5FEED_SOURCE_DIR"] + "/examples/train_imagenet.py"


def test_the_imagenet_recipe_trains_and_validates_from_h5feed_loaders(tmp_path):
    result = run_python([EXAMPLE, "--workdir", tmp_path, "--generated-images", "150", "--store",
                         "48", "--crop", "40", "--batch-size", "16", "--steps", "8",
                         "--threads", "2", "--device", "cpu"], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "converted 150 images" in result.stdout and "converted 30 images" in result.stdout
    final = re.search(r"final: steps (\d+), first loss ([\d.]+), last loss ([\d.]+), "
                      r"top-1 ([\d.]+)", result.stdout)
    assert final, result.stdout
    steps, first, last, accuracy = int(final[1]), *map(float, final.groups()[1:])
    assert steps == 8
    assert math.isfinite(last) and abs(first - math.log(10)) < 1.5  # 10 classes, from scratch
    assert 0 <= accuracy <= 1
