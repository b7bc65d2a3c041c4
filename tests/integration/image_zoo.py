"""Builds the image folder the integration tests convert: every kind of image a real
ImageFolder holds (JPEG, PNG, WebP, BMP, TIFF, PPM/PGM; RGB, grayscale, palette, alpha, CMYK,
16-bit), broken files, and files that are not images, laid out like torchvision expects."""
import os

import numpy as np
from PIL import Image

HEIGHT, WIDTH = 24, 32


def _photo(seed):
    """A smooth, photo-like RGB array (noise alone would be an unusual JPEG)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    channels = []
    for _ in range(3):
        a, b, c = rng.uniform(-4, 4, 3)
        channels.append(128 + 60 * np.sin(a * x / WIDTH + b * y / HEIGHT + c))
    img = np.stack(channels, axis=-1) + rng.normal(0, 6, (HEIGHT, WIDTH, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def _save_all_kinds(folder, seed):
    os.makedirs(folder, exist_ok=True)
    rgb = Image.fromarray(_photo(seed))
    rgb.save(f"{folder}/rgb.jpg", quality=90)
    rgb.save(f"{folder}/progressive.jpeg", quality=85, progressive=True)
    rgb.save(f"{folder}/sub444.JPG", quality=95, subsampling=0)
    rgb.convert("L").save(f"{folder}/gray.jpg", quality=90)
    rgb.convert("CMYK").save(f"{folder}/cmyk.jpg", quality=90)
    rgb.save(f"{folder}/rgb.png")
    rgba = rgb.copy()
    rgba.putalpha(Image.fromarray(_photo(seed + 1)[:, :, 0]))
    rgba.save(f"{folder}/rgba.png")
    rgb.convert("P", palette=Image.ADAPTIVE, colors=32).save(f"{folder}/palette.png")
    rgb.convert("LA").save(f"{folder}/gray_alpha.png")
    gray16 = (_photo(seed + 2)[:, :, 0].astype(np.uint16) * 3)  # some values above 255
    Image.fromarray(gray16.astype(np.uint16)).save(f"{folder}/gray16.png")
    rgb.save(f"{folder}/lossy.webp", quality=80)
    rgba.save(f"{folder}/lossless_alpha.webp", lossless=True)
    rgb.save(f"{folder}/rgb.bmp")
    rgb.save(f"{folder}/rgb.tiff")
    rgb.save(f"{folder}/rgb.ppm")
    rgb.convert("L").save(f"{folder}/gray.pgm")


def make_zoo(root):
    """Writes the zoo under `root`. Returns the relative paths of the files that must be
    skipped as broken."""
    _save_all_kinds(f"{root}/cat", 1)
    _save_all_kinds(f"{root}/bird", 2)
    _save_all_kinds(f"{root}/dog", 3)
    _save_all_kinds(f"{root}/dog/nested", 4)  # torchvision walks subfolders of a class
    # Not images: ignored by extension.
    with open(f"{root}/cat/notes.txt", "w") as f:
        f.write("not an image\n")
    with open(f"{root}/README.md", "w") as f:
        f.write("top-level files are not classes\n")
    Image.fromarray(_photo(9)).save(f"{root}/top_level.jpg")  # a file, not a class folder
    # Broken: an image extension, but not a decodable image.
    with open(f"{root}/dog/rgb.jpg", "rb") as f:
        jpeg = f.read()
    with open(f"{root}/dog/truncated.jpg", "wb") as f:
        f.write(jpeg[: len(jpeg) // 2])
    open(f"{root}/dog/empty.png", "wb").close()
    with open(f"{root}/bird/text.webp", "w") as f:
        f.write("this is text, not WebP\n")
    return {"dog/truncated.jpg", "dog/empty.png", "bird/text.webp"}


IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def torchvision_order(root):
    """torchvision.datasets.folder.make_dataset, restated: (relative path, label) pairs."""
    classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
    samples = []
    for label, name in enumerate(classes):
        for dirpath, _, fnames in sorted(os.walk(os.path.join(root, name), followlinks=True)):
            for fname in sorted(fnames):
                if fname.lower().endswith(IMAGE_EXTENSIONS):
                    samples.append((os.path.relpath(os.path.join(dirpath, fname), root), label))
    return classes, samples


def stored_order(n, seed):
    """The stored order docs/format.md specifies: SplitMix64(seed), Fisher-Yates from the
    end, j uniform in [0, i] by Lemire's method."""
    mask = (1 << 64) - 1
    state = seed

    def next_u64():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    def below(bound):
        product = next_u64() * bound
        low = product & mask
        if low < bound:
            threshold = ((1 << 64) - bound) % bound
            while low < threshold:
                product = next_u64() * bound
                low = product & mask
        return product >> 64

    order = list(range(n))
    for i in range(n, 1, -1):
        j = below(i)
        order[i - 1], order[j] = order[j], order[i - 1]
    return order
