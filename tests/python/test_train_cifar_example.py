"""examples/train_cifar.py runs briefly on generated CIFAR-shaped data: it converts with
h5feed.convert_cifar, trains through h5feed.Loader, and the model learns (the generated classes
are easy: a few dozen steps take the loss well down and the accuracy far above chance). A
second run in the same --workdir on other data converts its own files."""
import os
import re

from conftest import run_python

EXAMPLE = os.environ["H5FEED_SOURCE_DIR"] + "/examples/train_cifar.py"


def test_the_example_trains_a_cnn_from_an_h5feed_loader(tmp_path):
    result = run_python([EXAMPLE, "--steps", "25", "--batch-size", "32", "--generated-images",
                         "2000", "--workdir", tmp_path, "--threads", "2", "--device", "cpu"],
                        timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "converted 2000 train images" in result.stdout
    final = re.search(r"final: steps (\d+), first loss ([\d.]+), last loss ([\d.]+), "
                      r"test accuracy ([\d.]+)", result.stdout)
    assert final, result.stdout
    steps, first, last, accuracy = int(final[1]), *map(float, final.groups()[1:])
    assert steps == 25
    assert last < first / 2
    assert accuracy > 0.3  # 10 classes: chance is 0.1


def test_a_run_with_other_data_in_the_same_workdir_converts_its_own(tmp_path):
    """The converted files are kept for the next run; one asking for other data (here 300
    generated images, then 200) must not train on the files of the first unnoticed."""
    def run(images):
        result = run_python([EXAMPLE, "--steps", "1", "--batch-size", "32",
                             "--generated-images", str(images), "--workdir", tmp_path,
                             "--threads", "2", "--device", "cpu"], timeout=300)
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout

    assert "converted 300 train images" in run(300)
    assert "converted 200 train images" in run(200)
    again = run(300)  # the first run's files, kept
    assert "converted" not in again and "final: steps 1" in again

