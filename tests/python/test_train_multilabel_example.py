"""examples/train_multilabel.py runs briefly: it writes a torch Dataset of dict samples (PIL
image, label, a uint8 (6,) attributes field, a text caption) with h5feed.write in worker
processes, trains two heads through h5feed.Loader(..., fields=["attrs"]), and the model learns
both (the generated attributes are easy: a few dozen steps take
the loss well down and the accuracies far above chance)."""
import os
import re

from conftest import run_python

EXAMPLE = os.environ["H5FEED_SOURCE_DIR"] + "/examples/train_multilabel.py"


def test_the_example_writes_a_dataset_and_trains_on_its_attributes(tmp_path):
    result = run_python([EXAMPLE, "--steps", "40", "--batch-size", "32", "--images", "1500",
                         "--workdir", tmp_path, "--workers", "2", "--threads", "2",
                         "--device", "cpu"], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "wrote 1500 images to" in result.stdout
    assert "train-1500-seed0.h5: fields ['attrs', 'caption']" in result.stdout
    final = re.search(r"final: steps (\d+), first loss ([\d.]+), last loss ([\d.]+), test class "
                      r"accuracy ([\d.]+), test attribute accuracy ([\d.]+)", result.stdout)
    assert final, result.stdout
    steps, first, last, classes, attributes = int(final[1]), *map(float, final.groups()[1:])
    assert steps == 40
    assert last < first / 3
    assert classes > 0.6  # 3 classes: chance is a third
    assert attributes > 0.85  # each attribute present half the time: chance is a half


def test_the_example_refuses_no_epochs_before_writing_anything(tmp_path):
    # --epochs 0 wrote the data set, trained nothing and failed formatting its summary (None).
    result = run_python([EXAMPLE, "--epochs", "0", "--workdir", tmp_path], timeout=120)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--epochs: must be at least 1, not 0" in result.stderr
    assert not list(tmp_path.iterdir())
