"""Every code example of README.md and docs/*.md runs as a reader copies it: each fenced
`python` block, and each command of a `sh`, `console` or `bash` block, in a temporary folder that
holds small real inputs under the names the examples use (an image folder "photos/",
"train.h5", "celeba.h5", "voc.h5", CIFAR batches, VOC and COCO folders, ...; make_inputs
below), with a time limit per block.

A block is documented but not run only when the line right before its fence says so, with the
reason a reader sees (docs/ci.md, "Code examples in the docs"):

    <!-- not run: needs 64 MPI ranks and a cluster's shared folder -->

A marker without a reason, or one that stands before no code block, fails the test.

Fragments that need names from the text around them (a `model`, `epochs`, a `dataset`) take a
small preamble declared here per doc section (PREAMBLES). device="cuda" runs as written (a CPU
build of torch gets host batches, docs/python.md); the only rewrites of an example's text:
without a CUDA device `.cuda(` reads `.to("cpu", `, and https://cdn.example.com/ is served by
nginx on the loopback from the block's folder."""
import contextlib
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest
import torch
from PIL import Image

import h5feed

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import http_servers  # noqa: E402

SOURCE = Path(os.environ.get("H5FEED_SOURCE_DIR",
                             Path(__file__).resolve().parents[2]))
H5FEED = os.environ.get("H5FEED", "h5feed")
DOCS = [SOURCE / "README.md", *sorted((SOURCE / "docs").glob("*.md"))]
RUN_LANGUAGES = {"python", "sh", "console", "bash"}
MARKER = re.compile(r"^<!--\s*not run\b:?(.*?)-->\s*$")
SECONDS_PER_BLOCK = 90
HAS_CUDA = torch.cuda.is_available()


@dataclasses.dataclass
class Block:
    doc: Path
    line: int  # the opening fence's line, from 1
    language: str
    code: str
    heading: str  # the section's heading line, "" before the first
    marker: str | None  # the not-run marker line before the fence, if any

    @property
    def where(self):
        return f"{name_of(self.doc)}:{self.line}"


def name_of(doc):
    """The doc's path from the source tree (as the docs name each other), or its own."""
    return str(doc.relative_to(SOURCE)) if doc.is_relative_to(SOURCE) else str(doc)


def blocks_of(doc):
    """The fenced blocks of a Markdown file, every language, and the stray markers: those that
    stand before no fence."""
    lines = doc.read_text().split("\n")
    blocks, stray, heading, i = [], [], "", 0
    while i < len(lines):
        fence = re.match(r"^\s*```(\S*)\s*$", lines[i])
        if fence:
            end = i + 1
            while not re.match(r"^\s*```\s*$", lines[end]):
                end += 1
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            blocks.append(Block(doc, i + 1, fence.group(1), "\n".join(lines[i + 1:end]),
                                heading, before if MARKER.match(before) else None))
            i = end + 1
            continue
        if lines[i].startswith("#"):
            heading = lines[i]
        if MARKER.match(lines[i]):
            after = next((lines[k] for k in range(i + 1, len(lines)) if lines[k].strip()), "")
            if not re.match(r"^\s*```\S+\s*$", after):
                stray.append(f"{name_of(doc)}:{i + 1}")
        i += 1
    return blocks, stray


ALL_BLOCKS, STRAY_MARKERS = [], []
for _doc in DOCS:
    _blocks, _stray = blocks_of(_doc)
    ALL_BLOCKS += [b for b in _blocks if b.language in RUN_LANGUAGES]
    STRAY_MARKERS += _stray
RUN = [b for b in ALL_BLOCKS if b.marker is None]


def without_reason(blocks):
    return [b.where for b in blocks
            if b.marker is not None and len(MARKER.match(b.marker).group(1).strip()) < 8]


def test_each_not_run_marker_gives_its_reason_and_stands_before_a_block():
    assert not without_reason(ALL_BLOCKS), \
        f"not-run markers without a reason: {without_reason(ALL_BLOCKS)}"
    assert not STRAY_MARKERS, f"not-run markers before no code block: {STRAY_MARKERS}"


def test_markers_without_a_reason_or_a_block_are_found(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("# T\n\n<!-- not run: needs a GPU -->\n```python\nrun()\n```\n"
                   "<!-- not run -->\n\n```sh\nh5feed\n```\n<!-- not run: stray -->\n\ntext\n"
                   "```python\nx = 1\n```\n")
    blocks, stray = blocks_of(doc)
    assert [b.marker is not None for b in blocks] == [True, True, False]
    assert [b.line for b in blocks if b.marker and not without_reason([b])] == [4]
    assert len(without_reason(blocks)) == 1 and without_reason(blocks)[0].endswith(":9")
    assert len(stray) == 1 and stray[0].endswith(":12")


def test_the_docs_have_examples_to_run():
    assert len([b for b in RUN if b.language == "python"]) >= 15


def test_a_console_block_runs_its_prompted_lines_and_a_shell_block_every_line():
    console = "$ h5feed inspect train.h5 \\\n    --json\n{\"images\": 300}\n$ ls\ntrain.h5"
    assert [" ".join(c.split()) for c in commands_of(console, "console")] == [
        "h5feed inspect train.h5 --json", "ls"]
    shell = "# a comment\nh5feed verify a.h5   # checked\ncp a.h5 \\\n  b.h5"
    assert [" ".join(c.split()) for c in commands_of(shell)] == [
        "h5feed verify a.h5 # checked", "cp a.h5 b.h5"]


# The signatures docs/python.md lists, as the functions have them (names, kinds, defaults).
SIGNATURES = {"h5feed.Loader(path, batch_size,": h5feed.Loader,
              "h5feed.write(dataset, path, *,": h5feed.write}


@pytest.mark.parametrize("start", SIGNATURES)
def test_a_documented_signature_is_the_functions(start):
    import inspect
    block = next(b for b in ALL_BLOCKS if b.code.startswith(start))
    arguments = block.code[block.code.index("(") + 1:block.code.rindex(")")]
    scope = {"torch": torch, "IMAGENET_MEAN": h5feed.IMAGENET_MEAN,
             "IMAGENET_STD": h5feed.IMAGENET_STD}
    exec(f"def documented({arguments}): pass", scope)

    def described(function):
        return [(p.name, p.kind, p.default)
                for p in inspect.signature(function).parameters.values()]
    assert described(scope["documented"]) == described(SIGNATURES[start]), block.where


# Names an example takes from the text around it, per doc section: (doc, heading prefix, a
# line of the block or None for every block of the section, code run before the block).
MODELS = """
import torchvision
from torch.nn.functional import binary_cross_entropy_with_logits as bce, cross_entropy
epochs = 2
model = torch.nn.Conv2d(3, 21, 1)  # 21 classes per pixel (VOC's), or reduced to 40 scores
attributes_model = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                       torch.nn.Linear(3, 40))
# torchvision's Faster R-CNN on a backbone of one layer, at 64 x 64: a real detector's checks
# of its targets in a second (a ResNet or MobileNet one takes a minute a batch on 2 cores).
backbone = torch.nn.Conv2d(3, 8, 3, stride=4)
backbone.out_channels = 8
detector = torchvision.models.detection.FasterRCNN(
    backbone, num_classes=4, min_size=64, max_size=64,
    rpn_anchor_generator=torchvision.models.detection.anchor_utils.AnchorGenerator(
        ((8, 16),), ((1.0,),)),
    box_roi_pool=torchvision.ops.MultiScaleRoIAlign(["0"], 7, 2))
"""
# One rank of torch.distributed (gloo), as the examples that ask for it run under torchrun.
ONE_RANK = """
import socket, torch.distributed as dist
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
"""
PREAMBLES = [
    ("docs/python.md", "", None, "import h5feed, torch"),
    ("docs/augment.md", "", None, "import h5feed, torch"),
    ("docs/python.md", "## `h5feed.Loader`", None, MODELS),
    ("docs/python.md", "## `h5feed.Loader`", "bce(model(images)", "model = attributes_model"),
    ("docs/python.md", "## `h5feed.Loader`", "h5feed.Loader(path, batch_size,",
     "path, batch_size = 'train.h5', 8\n"
     "IMAGENET_MEAN, IMAGENET_STD = h5feed.IMAGENET_MEAN, h5feed.IMAGENET_STD"),
    ("docs/python.md", "## `h5feed.Loader`", "loader.load_state_dict(checkpoint",
     "loader = h5feed.Loader('train.h5', 4)\n"
     "next(iter(loader))\n"
     "checkpoint = {'loader': loader.state_dict()}\n"
     "loader = h5feed.Loader('train.h5', 4)"),
    ("docs/python.md", "### Moving from `DataLoader", None,
     "import h5py, torchvision\n"
     "from torch.utils.data import DataLoader, DistributedSampler\n"
     "normalize = torchvision.transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))\n"
     "epochs = 1\n" + ONE_RANK),
    ("docs/python.md", "## Writing any dataset", None,
     "import torchvision, glob, shutil, numpy as np\n"
     "shutil.copytree('imagenet/train', 'photos/train')\n"
     "from PIL import Image\n"
     "paths = sorted(glob.glob('photos/*/*'))\n"
     "attributes = [np.ones(40, np.uint8)] * len(paths)\n"
     "landmarks = [np.full((5, 2), 7, np.float32)] * len(paths)\n"
     "captions = [f'photo {i}' for i in range(len(paths))]\n"
     "images = sorted(glob.glob('VOC2012/JPEGImages/*'))\n"
     "masks = sorted(glob.glob('VOC2012/SegmentationClass/*'))\n"
     "boxes = [np.array([[2, 3, 20, 30]] * (i % 3), np.float32) for i in range(len(images))]\n"
     "box_classes = [[5] * (i % 3) for i in range(len(images))]\n"
     "coco = [(Image.open(p).convert('RGB'),  # CocoDetection's (image, annotations)\n"
     "         [{'bbox': [2, 3, 20, 15], 'category_id': 3}] * (i % 3))\n"
     "        for i, p in enumerate(sorted(glob.glob('val2017/*')))]"),
    ("docs/format.md", "## Images at their own size", None,
     "import shutil\nshutil.copy('photos.h5', 'train.h5')  # a file of images at their own size\n"
     "n = 3"),
    ("docs/format.md", "## Fields", "caption = f[",
     "import shutil\nshutil.copy('celeba.h5', 'train.h5')  # a file with these fields\nn = 3"),
    ("README.md", "## Write any dataset", None,
     "import numpy as np\n"
     "dataset = [{'image': np.full((40 + i, 50, 3), i, np.uint8), 'label': i % 3,\n"
     "            'attrs': np.ones(40, np.uint8), 'caption': f'photo {i}'} for i in range(20)]"),
    ("README.md", "## Read it in a trainer", None,
     "epochs, checkpoint = 2, {}"),
    ("docs/reader.md", "## Resuming on another number of ranks", None,
     "import h5feed, torch\n" + ONE_RANK +
     "model = torch.nn.Linear(2, 2)\n"
     "path, epochs = 'checkpoint.pt', 2\n"
     "loader = h5feed.Loader('train.h5', 4)"),
]


# The same for a command of a shell block, in bash.
SHELL_PREAMBLES = [
    ("docs/command.md", "## Other sources", "rechunk train.h5 train-1m.h5",
     "cp photos.h5 train.h5  # a file of images at their own size"),
]


def preamble_of(block, code=None):
    """The preambles of the block's section (for a shell block, code: one of its commands)."""
    doc = name_of(block.doc)
    preambles = PREAMBLES if block.language == "python" else SHELL_PREAMBLES
    return "\n".join(preamble for d, heading, line, preamble in preambles
                     if d == doc and block.heading.startswith(heading)
                     and (line is None or line in (code or block.code)))


# ---------------------------------------------------------------------------------------------
# The inputs: small, real, under the examples' names.

def image_folder(folder, images=12, classes=2, seed=0):
    subprocess.run([sys.executable, SOURCE / "tests" / "data" / "make_image_folder.py", folder,
                    "--images", str(images), "--classes", str(classes), "--min-size", "40",
                    "--max-size", "90", "--seed", str(seed), "--jobs", "1"],
                   check=True, capture_output=True, timeout=120)


def segmentation_pairs(images, masks, names, image_suffix="", mask_suffix="", ext=".jpg"):
    rng = np.random.default_rng(len(names))
    images.mkdir(parents=True)
    masks.mkdir(parents=True)
    for k, name in enumerate(names):
        h, w = 40 + 4 * k, 56 - 2 * k
        Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(
            images / f"{name}{image_suffix}{ext}")
        Image.fromarray(rng.integers(0, 21, (h, w), dtype=np.uint8)).save(
            masks / f"{name}{mask_suffix}.png")


def coco_folder(json_path, images):
    images.mkdir(parents=True, exist_ok=True)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(5)
    entries, annotations = [], []
    for i in range(6):
        h, w = 48 + 2 * i, 64 - 2 * i
        Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)).save(
            images / f"{i:012d}.jpg")
        entries.append({"id": i + 1, "file_name": f"{i:012d}.jpg", "height": h, "width": w})
        for k in range(i % 3 + 1):
            annotations.append({"id": len(annotations) + 1, "image_id": i + 1,
                                "category_id": [1, 3, 18][k], "bbox": [2 + k, 3, 20, 15],
                                "iscrowd": 0, "area": 300, "segmentation": []})
    json_path.write_text(json.dumps({
        "images": entries, "annotations": annotations,
        "categories": [{"id": 1, "name": "person"}, {"id": 3, "name": "car"},
                       {"id": 18, "name": "dog"}]}))


def smooth_image(h, w, i):
    """A colour ramp: small once compressed, even resized to 512 x 512."""
    y, x = np.mgrid[0:h, 0:w]
    return np.stack([(x * 255 // w), (y * 255 // h), np.full((h, w), 40 * i % 256)],
                    axis=-1).astype(np.uint8)


def sample_dicts(count, size=None, seed=1):
    """CelebA-shaped samples: an image (own size unless `size`), a label and the fields the
    docs read (attrs, landmarks, caption, meta), masks and boxes."""
    rng = np.random.default_rng(seed)
    samples = []
    for i in range(count):
        h, w = size or (40 + 3 * i, 60 - i)
        boxes = np.array([[2, 3, 20, 25], [5, 5, 30, 35]], np.float32)[:i % 3]
        samples.append({
            "image": smooth_image(h, w, i), "label": i % 3,
            "attrs": rng.integers(0, 2, 40, dtype=np.uint8),
            "landmarks": rng.random((5, 2), dtype=np.float32) * 30,
            "caption": f"a face, photo {i}", "meta": json.dumps({"id": i}).encode(),
            "mask": rng.integers(0, 21, (h, w), dtype=np.uint8),
            "boxes": boxes, "box_labels": np.arange(len(boxes), dtype=np.int64)})
    return samples


def pick(samples, *keys):
    return [{k: s[k] for k in ("image", "label", *keys)} for s in samples]


def make_inputs(root):
    image_folder(root / "photos")
    for name in ("data/imagenet/train", "data/photos", "imagenet/train", "imagenet/val"):
        shutil.copytree(root / "photos", root / name)
    # train.h5 and val.h5: 300 images of 64 x 64 (more than one batch of 256, which the
    # examples read with drop_last), made of the photos.
    photos = sorted((root / "photos").glob("*/*"))
    pixels = np.stack([np.asarray(Image.open(p).convert("RGB").resize((64, 64)))
                       for p in photos])
    np.save(root / "pixels.npy", pixels[np.arange(300) % len(photos)])
    np.save(root / "classes.npy", np.arange(300) % 2)
    for name in ("train.h5", "val.h5"):
        h5feed.convert_npy(root / "pixels.npy", root / name, labels=root / "classes.npy")
    (root / "pixels.npy").unlink()
    (root / "classes.npy").unlink()
    # imagenet.h5: ImageNet as often kept in HDF5, each image file's bytes an element.
    with h5py.File(root / "imagenet.h5", "w") as f:
        images = f.create_dataset("images", (len(photos),), h5py.vlen_dtype(np.uint8))
        for i, p in enumerate(photos):
            images[i] = np.frombuffer(p.read_bytes(), np.uint8)
        f["labels"] = np.arange(len(photos)) % 2
    h5feed.convert_imagefolder(root / "photos", root / "photos.h5", encoding="jpeg:90")
    h5feed.write(pick(sample_dicts(24, size=(44, 36)), "attrs", "landmarks", "caption", "meta"),
                 root / "celeba.h5", size=(44, 36), workers=0, progress=False)  # as CelebA's
    h5feed.write(pick(sample_dicts(12, size=(64, 64)), "mask", "boxes", "box_labels"),
                 root / "voc.h5", size=512, workers=0, progress=False)
    h5feed.write(pick(sample_dicts(12), "boxes", "box_labels"), root / "coco.h5",
                 workers=0, progress=False)

    rng = np.random.default_rng(7)
    cifar = root / "cifar-10-batches-bin"
    cifar.mkdir()
    for name in [f"data_batch_{b}.bin" for b in range(1, 6)] + ["test_batch.bin"]:
        records = rng.integers(0, 256, (6, 3073), dtype=np.uint8)
        records[:, 0] %= 10
        (cifar / name).write_bytes(records.tobytes())
    (cifar / "batches.meta.txt").write_text("\n".join(f"class{i}" for i in range(10)) + "\n")

    images = rng.integers(0, 256, (20, 32, 32, 3), dtype=np.uint8)
    np.save(root / "images.npy", images)
    np.save(root / "labels.npy", rng.integers(0, 10, 20).astype(np.int64))
    np.save(root / "attrs.npy", rng.integers(0, 2, (20, 40), dtype=np.uint8))
    np.save(root / "captions.npy", np.array([f"caption {i}" for i in range(20)]))
    with h5py.File(root / "mine.h5", "w") as f:
        f["x"], f["y"] = images, np.arange(20) % 4
    for k in range(2):
        subprocess.run([H5FEED, "convert", "npy", root / "images.npy", root / "labels.npy",
                        root / "train.h5", "--chunk", "8", "--part", f"{k}/2", "-q"],
                       check=True, timeout=120, cwd=root)

    voc = root / "VOC2012"
    names = [f"2007_{i:06d}" for i in range(6)]
    segmentation_pairs(voc / "JPEGImages", voc / "SegmentationClass", names)
    (voc / "ImageSets" / "Segmentation").mkdir(parents=True)
    (voc / "ImageSets" / "Segmentation" / "train.txt").write_text("\n".join(names[:4]) + "\n")
    segmentation_pairs(root / "ADE/images/training", root / "ADE/annotations/training",
                       [f"ADE_train_{i:08d}" for i in range(4)])
    segmentation_pairs(root / "leftImg8bit/train/aachen", root / "gtFine/train/aachen",
                       [f"aachen_{i:06d}_000019" for i in range(4)], "_leftImg8bit",
                       "_gtFine_labelIds", ".png")
    coco_folder(root / "instances_train2017.json", root / "train2017")
    coco_folder(root / "annotations/instances_train2017.json", root / "train2017")
    coco_folder(root / "instances_val2017.json", root / "val2017")


@pytest.fixture(scope="session")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    make_inputs(root)
    return root


# ---------------------------------------------------------------------------------------------
# Running a block.

def outputs_of(code):
    """The files a command or a call writes (h5feed.write, convert*, rechunk, merge), left out
    of the block's copy of the inputs: the last .h5 name of such a line."""
    written = set()
    for line in code.split("\n"):
        line = line.split("#", 1)[0]
        if re.search(r"h5feed\.(write|convert_\w+|rechunk|merge)\(", line):
            names = re.findall(r"""["']([^"']+\.h5)["']""", line)
        elif re.search(r"\bh5feed\s+(convert\s+\S+|rechunk|merge)\s", line):
            names = [t for t in line.split() if t.endswith(".h5") and not t.startswith("-")]
        else:
            continue
        written.update(Path(n).name for n in names[-1:])
    return written


def copy_inputs(inputs, folder, text, leave_out):
    """The inputs whose names the example's text (preamble included) has, but those it writes,
    copied into its folder."""
    folder.mkdir()
    for entry in inputs.iterdir():
        if entry.name in text and entry.name not in leave_out:
            if entry.is_dir():
                shutil.copytree(entry, folder / entry.name)
            else:
                shutil.copy(entry, folder / entry.name)


def without_cuda(code):
    """The example as a machine without a CUDA device runs it: a tensor's .cuda() would raise,
    where the Loader's device="cuda" delivers host batches."""
    if HAS_CUDA:
        return code
    return code.replace(".cuda(", '.to("cpu", ')


RUNNER = """
import json, sys
spec = json.load(open(sys.argv[1]))
scope = {"__name__": "__main__"}
exec(compile(spec["preamble"], "preamble of " + spec["where"], "exec"), scope)
exec(compile("\\n" * spec["line"] + spec["code"], spec["path"], "exec"), scope)
"""


def commands_of(code, language="sh"):
    """A shell block's commands: lines joined at a trailing backslash, comments dropped; in a
    console block only the lines after a "$ " prompt (and their continuations), the rest being
    what they print."""
    commands, current = [], ""
    for line in code.split("\n"):
        if language == "console" and not current:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        current += line[:-1] + " " if line.rstrip().endswith("\\") else line
        if line.rstrip().endswith("\\"):
            continue
        if current.strip() and not current.strip().startswith("#"):
            commands.append(current.strip())
        current = ""
    return commands


def environment(folder):
    return dict(os.environ, HOME=str(folder), OMP_NUM_THREADS="1",
                PATH=os.pathsep.join([str(Path(H5FEED).resolve().parent),
                                      str(Path(sys.executable).parent), os.environ["PATH"]]))


def run(argv, folder, what):
    try:
        done = subprocess.run(argv, cwd=folder, env=environment(folder), capture_output=True,
                              text=True, timeout=SECONDS_PER_BLOCK, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{what} ran past {SECONDS_PER_BLOCK} s\n{e.stdout}\n{e.stderr}")
    assert done.returncode == 0, (f"{what} failed (exit {done.returncode}):\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-6000:]}")


# A server an example names, stood in for by nginx on the loopback serving the block's folder
# (tests/support/http_servers.py): its URLs are the one other rewrite of an example's text.
SERVED = "https://cdn.example.com/"


@pytest.mark.parametrize("block", RUN, ids=[b.where for b in RUN])
def test_example_runs(block, inputs, tmp_path):
    if block.language == "python":
        folder = tmp_path / "run"
        preamble = preamble_of(block)
        copy_inputs(inputs, folder, preamble + block.code, outputs_of(block.code))
        code = without_cuda(block.code)
        with contextlib.ExitStack() as stack:
            if SERVED in code:
                server = stack.enter_context(http_servers.Nginx(folder))
                code = code.replace(SERVED, server.url(""))
            spec = tmp_path / "block.json"
            spec.write_text(json.dumps({"preamble": preamble, "where": block.where,
                                        "line": block.line, "code": code,
                                        "path": str(block.doc)}))
            run([sys.executable, "-c", RUNNER, spec], folder, f"{block.where} (python)")
        return
    for k, command in enumerate(commands_of(block.code, block.language)):
        folder = tmp_path / f"run{k}"
        preamble = preamble_of(block, command)
        copy_inputs(inputs, folder, preamble + command, outputs_of(command))
        run(["bash", "-c", f"set -eo pipefail\n{preamble}\n{command}"], folder,
            f"{block.where}: `{command}`")
