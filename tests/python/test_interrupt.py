"""Ctrl-C while Python waits in native code: a real child process, a real SIGINT. Iterating a
loader that cannot make progress, and converting, both stop with KeyboardInterrupt promptly and
cleanly (the loader can be destroyed; a conversion leaves nothing at its output)."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np



def interrupt_when_ready(script, timeout=60):
    """Runs `script` in a child python3; sends SIGINT a second after it prints 'ready' (by
    then it waits in native code). Returns (exit code, output after 'ready')."""
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=dict(os.environ))
    try:
        line = child.stdout.readline()
        assert line.strip() == "ready", line + child.stdout.read()
        time.sleep(1)
        child.send_signal(signal.SIGINT)
        output, _ = child.communicate(timeout=timeout)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, output


def test_ctrl_c_stops_a_loader_waiting_for_a_batch(small_file):
    # Every slot is held and another thread could free one, so the loader waits (for up to
    # the starvation limit of 5 s); the SIGINT must end the wait long before that.
    code, output = interrupt_when_ready(f"""
        import sys, time
        import h5feed
        loader = h5feed.Loader({str(small_file)!r}, 16, slots=2, dtype=None)
        iterator = iter(loader)
        held = [next(iterator) for _ in range(3)]  # slots + 1 buffers: all held
        started = time.monotonic()
        try:
            print("ready", flush=True)
            next(iterator)
        except KeyboardInterrupt:
            print(f"interrupted after {{time.monotonic() - started:.1f}} s", flush=True)
            del loader, iterator
            print("destroyed", flush=True)
            sys.exit(0)
        print("no interrupt: " + repr(sys.exc_info()), flush=True)
        sys.exit(1)
        """)
    assert code == 0, output
    assert "interrupted after" in output and "destroyed" in output
    waited = float(output.split("interrupted after ")[1].split(" s")[0])
    assert waited < 4.5, output  # the SIGINT (after 1 s), not the starvation limit (5 s)


def test_ctrl_c_stops_a_conversion_and_leaves_no_output(tmp_path):
    images = np.random.default_rng(0).integers(0, 256, (6000, 64, 64, 3), dtype=np.uint8)
    np.save(tmp_path / "big.npy", images)
    out = tmp_path / "big.h5"
    code, output = interrupt_when_ready(f"""
        import sys
        import h5feed
        try:
            print("ready", flush=True)
            h5feed.convert_npy({str(tmp_path / "big.npy")!r}, {str(out)!r},
                               compression="zstd:19", threads=1)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(0)
        print("finished", flush=True)
        sys.exit(1)
        """, timeout=120)
    assert code == 0, output
    assert "interrupted" in output
    assert not out.exists()
    assert not [p.name for p in tmp_path.iterdir() if "partial" in p.name]
