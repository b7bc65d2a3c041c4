"""An iterable's samples for h5feed.write (h5feed/_write.py): its payloads
(h5feed/_write_samples.py) kept in a temporary file beside the output, so that an iterable of
any length is written in the seeded order too, in bounded memory.
"""

from __future__ import annotations

import array
import errno
import os
import pickle
import tempfile

from ._errors import Error, IoError, NoSpaceError


class Spool:
    """An iterable's payloads, pickled one after another into a temporary file in `folder`
    (beside the output: ".NAME.spool-PID-XXXX"), read back by position. Removed by close();
    a spool its process left when killed is removed by the next Spool of the same output, as
    the writer removes a dead process's partial file (lib/format/partial_file.h)."""

    def __init__(self, folder: str, name: str):
        folder = folder or "."
        _remove_stale_spools(folder, name)
        handle, self.path = tempfile.mkstemp(prefix=f".{name}.spool-{os.getpid()}-", dir=folder)
        self._file = os.fdopen(handle, "w+b")
        self._ends = array.array("q")

    def add(self, payload: tuple):
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self._file.write(data)
        except OSError as error:
            raise self._write_failed(error) from error
        self._ends.append((self._ends[-1] if self._ends else 0) + len(data))

    def _write_failed(self, error: OSError) -> Error:
        """The h5feed error for a failed write to the spool, as the native writer words its own
        (the disk full: NoSpaceError, as for ENOSPC, EDQUOT and EFBIG; else IoError)."""
        where = (f"keeping the iterable's samples in {self.path} ({len(self)} so far, "
                 f"{self._ends[-1] if self._ends else 0} bytes) before writing them in the "
                 "stored order")
        if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            return NoSpaceError(f"the disk is full: {where} failed ({error.strerror}). Free "
                                "space on that file system, or write the output to another "
                                "disk (the samples are kept beside it), or give a map-style "
                                "dataset (len() and dataset[i]), which is not kept")
        return IoError(f"{where} failed: {error.strerror or error}")

    def __len__(self):
        return len(self._ends)

    def fetch(self, rows):
        """(row, payload) for each of `rows`, read back from the file."""
        try:
            self._file.flush()  # the samples the file's buffer holds, which may not fit either
        except OSError as error:
            raise self._write_failed(error) from error
        descriptor = self._file.fileno()
        for row in rows:
            row = int(row)
            begin = self._ends[row - 1] if row else 0
            yield row, pickle.loads(os.pread(descriptor, self._ends[row] - begin, begin))

    def close(self):
        try:
            self._file.close()
        except OSError:  # flushing what a full disk refused: the file is removed below anyway
            pass
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def _remove_stale_spools(folder: str, name: str):
    """Removes the spools of output `name` in `folder` whose process no longer runs on this
    machine. Best effort, as for partial files: what cannot be listed or removed is left."""
    prefix = f".{name}.spool-"
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        pid = entry[len(prefix):].split("-", 1)[0] if entry.startswith(prefix) else ""
        if not pid.isdigit() or int(pid) in (0, os.getpid()):
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:  # gone; a PermissionError means another user's, alive
            try:
                os.unlink(os.path.join(folder, entry))
            except OSError:
                pass
        except (OSError, OverflowError):  # alive, another user's, or no PID of this machine
            pass
