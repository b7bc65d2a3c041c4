"""examples/train_imagenet.py runs end to end on a folder of a few generated photos: it splits the
folder (every fifth file of a class to validation), converts both parts, trains a ResNet-18
through h5feed's random resized crops and evaluates top-1 on the validation resize, in seconds
(tiny crops, a few steps)."""
import math
import os
import re

from conftest import run_python

SOURCE = os.environ["H5FEED_SOURCE_DIR"]
EXAMPLE = SOURCE + "/examples/train_imagenet.py"


def test_the_imagenet_recipe_trains_and_validates_from_h5feed_loaders(tmp_path):
    photos = tmp_path / "photos"
    made = run_python([SOURCE + "/tests/data/make_image_folder.py", photos, "--images", "150",
                       "--classes", "10", "--min-size", "40", "--max-size", "120"])
    assert made.returncode == 0, made.stderr
    result = run_python([EXAMPLE, "--data", photos, "--workdir", tmp_path / "work", "--store",
                         "48", "--crop", "40", "--batch-size", "16", "--steps", "6",
                         "--threads", "2", "--device", "cpu"], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    # 15 photos per class: 12 train, 3 validate.
    assert "converted 120 images" in result.stdout and "converted 30 images" in result.stdout
    final = re.search(r"final: steps (\d+), first loss ([\d.]+), last loss ([\d.]+), "
                      r"top-1 ([\d.]+)", result.stdout)
    assert final, result.stdout
    steps, first, last, accuracy = int(final[1]), *map(float, final.groups()[1:])
    assert steps == 6
    assert math.isfinite(last) and abs(first - math.log(10)) < 1.5  # 10 classes, from scratch
    assert 0 <= accuracy <= 1
