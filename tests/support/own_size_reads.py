"""How docs/format.md says an h5py user reads a file of images at their own size (version 2),
which the tests of every folder compare h5feed's own reading with."""
import io

import numpy as np
from PIL import Image


def stored_image(f, n):
    """Image n of `f` (an open h5py.File) at its own shape, as docs/format.md's snippet reads
    it: raw pixels reshaped, an encoded image decoded as RGB."""
    start, size = int(f["image_offsets"][n]), int(f["image_bytes"][n])
    stored = f["images"][start:start + size]
    if f["image_encodings"][n] == 0:
        return stored.reshape(f["image_shapes"][n])
    return np.asarray(Image.open(io.BytesIO(stored.tobytes())).convert("RGB"))
