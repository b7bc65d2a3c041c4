"""examples/train_contrastive.py runs on a few generated photos: two views of each image from
h5feed.Loader(views=...), and the contrastive loss falls below its start within a dozen steps
(telling an image's own crops from the others' is easy at first)."""
import os
import re

from conftest import run_python

EXAMPLE = os.environ["H5FEED_SOURCE_DIR"] + "/examples/train_contrastive.py"


def test_two_views_train_a_contrastive_model(tmp_path):
    result = run_python([EXAMPLE, "--workdir", tmp_path, "--generated-images", "150", "--store",
                         "48", "--crop", "32", "--batch-size", "16", "--steps", "12",
                         "--epochs", "2", "--threads", "2", "--device", "cpu"], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    final = re.search(r"final: steps (\d+), first loss ([\d.]+), last loss ([\d.]+)",
                      result.stdout)
    assert final, result.stdout
    assert int(final[1]) == 12
    assert float(final[3]) < float(final[2])
