"""A Loader in a forked child (os.fork, a torch DataLoader worker): the child has the parent's
Loader without its reading threads, so using it there raises h5feed.UnsupportedError saying
what to do, freeing it there (the child's exit) ends promptly, and the parent's goes on. A
child forked while a Loader was open is refused a Loader of its own (it inherits the thread
pool mid-work, where one crashed), and one forked after the parent's were destroyed reads as
any process does. Each case runs in a child python3 with a time limit, so a hang fails the
test instead of stopping the suite."""
import textwrap

from conftest import SAMPLES, run_python

BATCH = 10


def run(script, timeout=60):
    result = run_python(textwrap.dedent(script), timeout=timeout)
    return result.returncode, result.stdout + result.stderr


def test_a_forked_child_is_refused_the_parents_loader_mid_epoch(small_file):
    code, output = run(f"""
        import os, signal, sys
        import h5feed
        loader = h5feed.Loader({str(small_file)!r}, {BATCH}, with_indices=True)
        iterator = iter(loader)
        held = next(iterator)  # a batch the child inherits, with the rest of the epoch in flight
        pid = os.fork()
        if pid == 0:
            signal.alarm(20)  # a hang ends the child with SIGALRM
            try:
                next(iterator)
                print("child: the parent's iterator delivered")
            except h5feed.UnsupportedError as error:
                print("child refused:", error)
            try:
                iter(loader)
                print("child: a new epoch of the parent's loader started")
            except h5feed.UnsupportedError:
                print("child refused a new epoch")
            del held, iterator, loader  # freed in the child: abandoned, not joined
            sys.exit(0)
        _, status = os.waitpid(pid, 0)
        print("child status", status)
        rest = sum(len(i) for _, _, i in iterator)
        print("parent delivered", len(held[2]) + rest)
        """)
    assert code == 0, output
    assert "child refused: h5feed.Loader: this loader was opened in process" in output, output
    assert "multiprocessing_context='spawn'" in output
    assert "child refused a new epoch" in output
    assert "child status 0" in output, output
    assert f"parent delivered {SAMPLES}" in output


def test_a_forked_child_that_only_exits_ends_promptly(small_file):
    # A fork for something else (a checkpoint writer, a multiprocessing 'fork' helper) while an
    # epoch is read: the child's normal exit frees the parent's Loader and held batch there.
    code, output = run(f"""
        import os, signal, sys
        import h5feed
        loader = h5feed.Loader({str(small_file)!r}, {BATCH})
        iterator = iter(loader)
        held = next(iterator)
        pid = os.fork()
        if pid == 0:
            signal.alarm(20)
            sys.exit(0)  # interpreter exit: the Loader's and the batch's destructors run
        _, status = os.waitpid(pid, 0)
        print("child status", status)
        """)
    assert code == 0, output
    assert "child status 0" in output, output


def test_dataloader_workers_of_a_dataset_holding_a_loader_get_the_refusal(small_file):
    code, output = run(f"""
        import torch
        import h5feed

        class Batches(torch.utils.data.IterableDataset):
            def __init__(self):
                self.loader = h5feed.Loader({str(small_file)!r}, {BATCH})
            def __iter__(self):
                for images, labels in self.loader:
                    yield images.clone(), labels

        dataset = Batches()
        next(iter(dataset))  # the parent has started reading
        try:
            list(torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=2, timeout=30))
            print("workers delivered")
        except h5feed.UnsupportedError as error:
            print("refused:", error)
        """, timeout=90)
    assert code == 0, output
    # DataLoader re-raises the worker's error as its type, with the worker's traceback.
    assert "refused: Caught UnsupportedError in DataLoader worker process" in output, output
    assert "h5feed.Loader: this loader was opened in process" in output


def test_a_child_forked_while_a_loader_is_open_is_refused_one_of_its_own(small_file):
    # Such a child's own Loader crashed now and then (SIGSEGV) in its first epoch: the thread
    # pool it inherited was in the middle of the parent's work.
    code, output = run(f"""
        import gc, os, signal, sys
        import h5feed

        def child(label):
            pid = os.fork()
            if pid == 0:
                signal.alarm(30)
                try:
                    own = h5feed.Loader({str(small_file)!r}, {BATCH}, with_indices=True)
                    print(label, "read", sum(len(i) for _, _, i in own), flush=True)
                except h5feed.UnsupportedError as error:
                    print(label, "refused:", error, flush=True)
                os._exit(0)
            _, status = os.waitpid(pid, 0)
            print(label, "status", status, flush=True)

        loader = h5feed.Loader({str(small_file)!r}, {BATCH})
        iterator = iter(loader)
        next(iterator)  # the parent is reading
        child("open")
        del iterator, loader
        gc.collect()
        child("closed")  # every Loader of the parent destroyed: the child opens its own
        """)
    assert code == 0, output
    assert "open refused: h5feed.Loader: this process" in output, output
    assert "was forked from process" in output and "multiprocessing_context='spawn'" in output
    assert "open status 0" in output
    assert f"closed read {SAMPLES}" in output, output
    assert "closed status 0" in output
