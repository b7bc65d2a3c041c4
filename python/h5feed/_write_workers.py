"""Fetching a dataset's samples for h5feed.write (h5feed/_write.py): dataset[row] for each row of
the stored order, as payloads (h5feed/_write_samples.py), yielded in that order.

- `fetch_in_process`: in the writing process, one after another (workers=0).
- `WorkerPool`: in worker processes (workers=N), as torch's DataLoader, FFCV and LitData do,
  since a dataset's __getitem__ is Python code and holds the GIL. The writing process hands
  out runs of consecutive positions of the order, a bounded number ahead of the position it
  yields (in samples, and in bytes once payload sizes are known), and reorders what comes back.
  A worker that raises sends its row, its exception's type and its traceback's text; the
  writing process raises the same type with that text. Workers ignore SIGINT: Ctrl-C is the
  writing process's to handle, which then ends them.
"""

from __future__ import annotations

import importlib
import multiprocessing
import pickle
import signal
import sys
import traceback
from multiprocessing.connection import wait

from ._errors import InvalidArgumentError
from ._write_samples import SampleRefused, make_payload, row_name

# A run of positions handed to a worker holds about this many bytes of payloads (and at most
# _MAX_RUN samples): large enough that the cost of a message is small beside its samples, small
# enough that a run does not hold back the order for long.
_RUN_BYTES = 1 << 20
_MAX_RUN = 64


def payload_bytes(payload: tuple) -> int:
    return len(payload[1]) + sum(len(value[4]) for value in payload[6])


def _with_row(error: BaseException, row: int) -> BaseException:
    """`error`, raised by dataset[row] in this process, saying so."""
    note = f"h5feed.write: raised by {row_name(row)}"
    if hasattr(error, "add_note"):
        error.add_note(note)
        return error
    return RuntimeError(f"{note}: {type(error).__name__}: {error}")


def _how_it_ended(exitcode) -> str:
    if exitcode is None:
        return "still running, its pipe closed"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"


def _rows_named(rows: list) -> str:
    """The rows a worker was fetching, the first few by name."""
    shown = ", ".join(row_name(row) for row in rows[:4])
    if len(rows) == 1:
        return shown
    more = f" and {len(rows) - 4} more" if len(rows) > 4 else ""
    return f"one of {shown}{more}"


def fetch_in_process(dataset, rows, given=None):
    """(row, payload) for each of `rows`, calling dataset[row] here (`given`: make_payload's)."""
    for row in rows:
        row = int(row)
        try:
            sample = dataset[row]
        except Exception as error:
            raise _with_row(error, row)
        yield row, make_payload(sample, row, given)


def _exception_type(module: str, qualname: str):
    try:
        found = sys.modules.get(module) or importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except Exception:
        return None
    return found if isinstance(found, type) and issubclass(found, Exception) else None


def _raise_from_worker(row: int, worker: int, module: str, qualname: str, text: str):
    message = (f"{row_name(row)} raised {qualname} in h5feed.write's worker process {worker}; "
               f"its traceback:\n{text}")
    cls = _exception_type(module, qualname)
    error = None
    # A KeyError's str() is its argument's repr(), which would show the traceback as one line.
    if cls is not None and not issubclass(cls, KeyError):
        try:
            error = cls(message)
        except Exception:
            error = None
    raise error if error is not None else RuntimeError(message)


def _work(dataset, connection, worker: int, inherited: list, current, given):
    """A worker process: makes the payloads of each run of rows it is sent, until None.
    `inherited`: the writing process's ends of the pipes, which a forked worker holds copies
    of; closed, so that the writing process's death (even by SIGKILL) closes its pipe, and the
    worker, waiting for a task or sending a run, sees it and ends. `current`: shared memory
    holding the row being fetched (-1 between rows), which names it if the worker dies.
    `given`: make_payload's (fields='s kinds, which a worker needs to make a payload)."""
    for end in inherited:
        end.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)  # as DataLoader's workers: the processes share the cores
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        first, rows = task
        payloads, failure = [], None
        for row in rows:
            current.value = row
            try:
                payloads.append(make_payload(dataset[row], row, given))
            except SampleRefused as refused:
                failure = ("refused", row, str(refused))
                break
            except BaseException as error:
                failure = ("raised", row, type(error).__module__, type(error).__qualname__,
                           traceback.format_exc())
                break
        current.value = -1
        try:
            connection.send((first, payloads, failure))
        except OSError:  # the writing process is gone
            return


class WorkerPool:
    """`workers` processes that call dataset[row] and make its payload (`given`:
    make_payload's). Close it (or use it in a with block): its processes end then, at once if
    the writing is abandoned."""

    def __init__(self, dataset, workers: int, given=None):
        context = multiprocessing.get_context()
        self._processes, self._connections = [], []
        self._current = [context.RawValue("q", -1) for _ in range(workers)]
        try:
            for worker in range(workers):
                ours, theirs = context.Pipe()
                # Only fork copies them; other start methods would pass them to the worker.
                inherited = [*self._connections, ours] \
                    if context.get_start_method() == "fork" else []
                process = context.Process(target=_work,
                                          args=(dataset, theirs, worker, inherited,
                                                self._current[worker], given),
                                          name=f"h5feed.write worker {worker}", daemon=True)
                process.start()
                theirs.close()
                self._processes.append(process)
                self._connections.append(ours)
        except BaseException as error:
            self.close(abandon=True)
            method = context.get_start_method()
            if method != "fork" and isinstance(error, (pickle.PicklingError, TypeError,
                                                       AttributeError)) \
                    and hasattr(error, "add_note"):
                error.add_note(f"h5feed.write: its worker processes start by {method!r} "
                               "(multiprocessing's start method), which pickles the dataset to "
                               "send it to them: make the dataset picklable, or give workers=0 "
                               "(no worker processes)")
            raise

    def __enter__(self):
        return self

    def __exit__(self, kind, value, trace):
        self.close(abandon=kind is not None)

    def _received(self, worker: int, rows: list):
        """What `worker` sends back for its run of `rows`; a RuntimeError naming them, and how
        it ended, if it died on the way."""
        try:
            return self._connections[worker].recv()
        except (EOFError, OSError):
            process = self._processes[worker]
            process.join(1)
            row = self._current[worker].value  # -1: between rows, sending the run
            fetching = row_name(row) if row >= 0 else _rows_named(rows)
            raise RuntimeError(
                f"h5feed.write's worker process {worker} (pid {process.pid}) ended "
                f"unexpectedly ({_how_it_ended(process.exitcode)}) while fetching {fetching}; a "
                "crash in the dataset's code, or the system out of memory, ends a worker so "
                "(workers=0 runs dataset[i] in this process, where a debugger or faulthandler "
                "can see it)") from None

    def fetch(self, rows, ahead_bytes: int):
        """(row, payload) for each of `rows` (a sequence of dataset rows), in that order. At
        most about `ahead_bytes` of payloads are fetched ahead of the one yielded, and at least
        one run per worker."""
        total, workers = len(rows), len(self._processes)
        # One sample a worker until payload sizes are known: a first run of several samples of
        # 60 MiB each held 480 MiB in a worker, and as much again here, whatever memory_limit.
        run, ahead = 1, workers
        seen_bytes = seen = 0
        handed = position = 0  # positions handed out, and yielded
        runs = {}  # first position -> payloads, of runs received and not yet yielded
        idle = list(range(workers))
        busy = {}  # connection -> worker
        while position < total:
            while idle and handed < total and handed - position < ahead:
                worker = idle.pop()
                end = min(total, handed + run)
                run_rows = [int(r) for r in rows[handed:end]]
                self._connections[worker].send((handed, run_rows))
                busy[self._connections[worker]] = worker, run_rows
                handed = end
            if position in runs:
                for payload in runs.pop(position):
                    yield int(rows[position]), payload
                    position += 1
                continue
            for connection in wait(list(busy)):
                worker, run_rows = busy.pop(connection)
                idle.append(worker)
                first, payloads, failure = self._received(worker, run_rows)
                if failure is not None:
                    if failure[0] == "refused":
                        raise InvalidArgumentError(failure[2])
                    _raise_from_worker(failure[1], worker, *failure[2:])
                runs[first] = payloads
                seen += len(payloads)
                seen_bytes += sum(payload_bytes(p) for p in payloads)
                mean = max(1, seen_bytes // max(1, seen))
                run = max(1, min(_MAX_RUN, _RUN_BYTES // mean))
                ahead = max(workers * run, min(ahead_bytes // mean, 16 * workers * run))

    def close(self, abandon: bool = False):
        """Ends the workers: asks them to stop and waits for them, or, abandoning, ends them at
        once (they may be in the middle of a sample)."""
        for connection in self._connections:
            if not abandon:
                try:
                    connection.send(None)
                except OSError:
                    pass
            connection.close()
        for process in self._processes:
            if abandon:
                process.terminate()
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()
        self._processes, self._connections = [], []
