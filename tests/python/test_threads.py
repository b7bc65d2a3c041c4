"""One Loader used from several Python threads: its native calls release the GIL while they wait,
so they are serialised by the binding. Two loops over one Loader end with the older one's
RuntimeError (never a hang, a crash or a batch of garbage rows), and state_dict() or len() from
the trainer's thread beside a thread that iterates see a consistent loader. Each case runs in a
child python3 with a time limit, so a hang fails the test instead of stopping the suite."""
import textwrap

from conftest import run_python


def run(script, timeout=60):
    result = run_python(textwrap.dedent(script), timeout=timeout)
    return result.returncode, result.stdout + result.stderr


def test_two_threads_looping_over_one_loader_take_turns(tmp_path):
    # Chunks large enough that a Next often waits (GIL released) while the other thread starts
    # an epoch: before the calls were serialised this hung, or failed reading freed memory
    # ("row 139932450424752 ... lies outside the dataset").
    code, output = run(f"""
        import faulthandler, threading, time
        import numpy as np
        import h5feed
        faulthandler.enable()
        rng = np.random.default_rng(0)
        np.save({str(tmp_path / "images.npy")!r},
                rng.integers(0, 256, (1200, 64, 64, 3), dtype=np.uint8))
        h5feed.convert_npy({str(tmp_path / "images.npy")!r}, {str(tmp_path / "f.h5")!r},
                           chunk=256)
        loader = h5feed.Loader({str(tmp_path / "f.h5")!r}, 32, threads=2, slots=2,
                               augment=h5feed.Augment(random_resized_crop=56))
        stop = time.monotonic() + 8
        counts, unexpected = [0, 0], []

        def loop(k):
            while time.monotonic() < stop:
                try:
                    for images, labels in loader:
                        counts[k] += 1
                        if k == 1:
                            break  # restart at once: the other thread's loop is interrupted
                except RuntimeError as error:
                    if "another iteration over this loader started" not in str(error):
                        unexpected.append(repr(error))
                except Exception as error:
                    unexpected.append(repr(error))

        threads = [threading.Thread(target=loop, args=(k,)) for k in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print("unexpected", unexpected)
        print("both delivered", min(counts) > 0)
        """)
    assert code == 0, output
    assert "unexpected []" in output, output
    assert "both delivered True" in output, output


def test_state_dict_and_len_beside_a_thread_that_iterates(small_file):
    code, output = run(f"""
        import threading
        import h5feed
        loader = h5feed.Loader({str(small_file)!r}, 8, threads=2)
        batches = len(loader)
        done = threading.Event()

        def train():
            for epoch in range(20):
                loader.set_epoch(epoch)
                for _ in loader:
                    pass
            done.set()

        thread = threading.Thread(target=train)
        thread.start()
        steps = []
        while not done.is_set():
            state = loader.state_dict()
            steps.append(state["step"])
            assert len(loader) == batches
        thread.join()
        print("steps in range", all(0 <= s <= batches for s in steps), len(steps) > 0)
        """)
    assert code == 0, output
    assert "steps in range True True" in output, output


def test_a_signal_handler_takes_state_dict_while_next_waits(small_file):
    # Next runs Python's signal handlers between its waiting slices, on the thread that holds
    # the loader's call lock: a handler that checkpoints there must not wait for that lock.
    code, output = run(f"""
        import os, signal, threading
        import h5feed
        loader = h5feed.Loader({str(small_file)!r}, 16, slots=2, dtype=None)
        iterator = iter(loader)
        held = [next(iterator) for _ in range(3)]  # every buffer held: the next() waits
        states = []
        signal.signal(signal.SIGUSR1, lambda *_: states.append(loader.state_dict()["step"]))
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGUSR1)).start()
        try:
            next(iterator)
        except h5feed.InvalidArgumentError:
            pass  # the 5 s starvation limit, after the handler ran
        print("handler saw step", states)
        """)
    assert code == 0, output
    assert "handler saw step [3]" in output, output
