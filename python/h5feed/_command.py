"""The `h5feed` console script of a pip install ([project.scripts] in pyproject.toml): runs the
command's binary, which the wheel carries in bin/ of this package, in place of this process
(os.execv), so its arguments, output, signals and exit code are the command's own."""

from __future__ import annotations

import os
import sys


def main() -> None:
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "h5feed")
    if not os.access(program, os.X_OK):
        sys.exit(f"h5feed: the command's program {program} is missing or not executable; this "
                 "h5feed was installed without it (from a build tree or `cmake --install`, "
                 "whose bin/h5feed is the command). Reinstall with pip (docs/install.md)")
    # argv[0] is what the user typed; the program finds its helpers from /proc/self/exe.
    os.execv(program, [sys.argv[0], *sys.argv[1:]])
