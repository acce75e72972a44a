"""Running ``judgelog verify``'s tasks: in this process, on local Dask worker processes, or on an existing
dask.distributed cluster (``--scheduler ADDRESS``); with an output folder that makes a run resumable.

Each task (:class:`judgelog.boards.Task`) is independent: a worker rebuilds the engine from the rule paths
once per process and checks the task's boards. Results are merged in task order
(:func:`judgelog.verify.merge`), so the output is the same whatever the number of workers. With an output
folder, each finished task is written to ``tasks/NAME.json`` and a later run with the same scope and rules
reads it back instead of checking it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from .boards import Shape, Task
from .errors import UsageError

if TYPE_CHECKING:
    from .engine import Engine
    from .scope import Scope

__all__ = ["Job", "Interrupted", "run_job", "default_workers"]


class Interrupted(KeyboardInterrupt):
    """The run was interrupted (Ctrl-C, or SIGTERM while ``judgelog verify`` runs): ``results`` are those of
    the tasks that had finished, in task order (each saved, with an output folder, so a later run resumes)."""

    def __init__(self, results: list[dict]) -> None:
        super().__init__("interrupted")
        self.results = results


MIN_TASKS_FOR_WORKERS = 8  # fewer tasks finish before a local cluster has started


def default_workers(asked: int | None, tasks: int) -> int:
    """``--workers``: as asked, or by default one local Dask worker process per CPU when dask.distributed
    is installed (judgelog[dask]) and there are :data:`MIN_TASKS_FOR_WORKERS` tasks or more, else 1 (this
    process). The output is the same either way."""
    if asked is not None:
        return asked
    import importlib.util

    if tasks < MIN_TASKS_FOR_WORKERS or importlib.util.find_spec("distributed") is None:
        return 1
    return max(1, min(os.cpu_count() or 1, tasks))


@dataclass(frozen=True)
class Job:
    """What a worker needs to rebuild the engine and the scope."""

    rules: tuple[str, ...] = ()
    include_library: bool = True
    library: str | None = None
    backend: str = "pydatalog"
    scope: dict = field(default_factory=dict, hash=False)
    scope_source: str = "<scope>"
    all_found: bool = False
    reference: bool = False  # the reference enumerator instead of the clingo search

    def fingerprint(self) -> str:
        """What a saved result was computed from: the options, the scope, and the content of every rule file
        the engine loads and of judgelog's own code (an edited rule file makes the saved results stale)."""
        text = json.dumps(
            [
                list(self.rules),
                self.include_library,
                self.library,
                self.backend,
                self.scope,
                self.all_found,
                self.reference,
            ],
            sort_keys=True,
            default=str,
        )
        sources = _sources(_stamp(self.rules, self.include_library, self.library))
        return hashlib.sha256((text + sources).encode()).hexdigest()[:16]


def _engine(rules: tuple[str, ...], include_library: bool, library: str | None, backend: str) -> Engine:
    """The engine a job runs on, kept per process while its rule files are unchanged (a file edited between
    two runs in one process, as in a test, gives a new engine)."""
    return _engine_of(rules, include_library, library, backend, _stamp(rules, include_library, library))


@lru_cache(maxsize=4)
def _engine_of(
    rules: tuple[str, ...], include_library: bool, library: str | None, backend: str, _stamp: tuple
) -> Engine:
    from .engine import Engine

    return Engine(rules=rules, include_library=include_library, library=library, properties=True, backend=backend)


@lru_cache(maxsize=4)
def _sources(stamp: tuple) -> str:
    """The address of the content of the rule files a stamp lists, and of judgelog's code (read once per
    stamp: a job's fingerprint is asked for every task saved or resumed)."""
    from .cache import address

    return address("verify-job", options=(), files=[path for path, _size, _changed in stamp])


def _stamp(rules: tuple[str, ...], include_library: bool, library: str | None) -> tuple:
    """The size and time of change of every rule file under the paths an engine loads from."""
    from pathlib import Path

    from .catalog import rules_dir

    roots = [Path(r) for r in rules] + ([Path(library) if library else rules_dir()] if include_library else [])
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.dl")) if root.is_dir() else [root]:
            try:
                info = path.stat()
            except OSError:
                continue
            found.append((str(path), info.st_size, info.st_mtime_ns))
    return tuple(found)


@lru_cache(maxsize=4)
def _scope(job: Job) -> Scope:
    """The job's scope, loaded (and its follow-up actions checked) once per process, not once per task."""
    from .scope import load_scope

    return load_scope(
        job.scope, _engine(job.rules, job.include_library, job.library, job.backend), source=job.scope_source
    )


def check_task(job: Job, task: Task | Shape) -> dict:
    """One task, checked in whatever process runs it: a board shape searched by clingo, or a task of the
    reference enumerator."""
    import time

    start = time.monotonic()
    engine = _engine(job.rules, job.include_library, job.library, job.backend)
    if isinstance(task, Task):
        from .verify import run_task

        result = run_task(engine, _scope(job), task, all_found=job.all_found)
    else:
        from .verify_search import search_shape

        result = search_shape(engine, _scope(job), task, all_found=job.all_found)
    result["seconds"] = round(time.monotonic() - start, 1)  # for the progress line (never in the output)
    return result


def _saved(folder: str | None, job: Job, task: Task | Shape) -> dict | None:
    if not folder:
        return None
    path = os.path.join(folder, "tasks", task.name + ".json")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data.get("result") if data.get("job") == job.fingerprint() else None


def _save(folder: str | None, job: Job, task: Task | Shape, result: dict) -> None:
    if not folder:
        return
    os.makedirs(os.path.join(folder, "tasks"), exist_ok=True)
    path = os.path.join(folder, "tasks", task.name + ".json")
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"job": job.fingerprint(), "result": result}, fh, sort_keys=True)
    os.replace(tmp, path)  # a task file is complete or absent, never half written


class _Signals:
    deferring = False  # inside _deferred(): a signal is kept for its end
    pending = False


@contextlib.contextmanager
def _interrupting() -> Iterator[None]:
    """SIGINT (Ctrl-C) and SIGTERM (a job killed) raise KeyboardInterrupt, so that a run stops with the results
    of the tasks it finished; inside :func:`_deferred` they are kept until its end. The handlers before are
    put back after (only the main thread can set one: elsewhere the signals are left alone)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        if _Signals.deferring:
            _Signals.pending = True
            return
        raise KeyboardInterrupt

    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        _Signals.deferring = _Signals.pending = False


@contextlib.contextmanager
def _deferred() -> Iterator[None]:
    """A Dask call that an exception raised inside would leave half done (dask.distributed logs a traceback
    from its event loop then): a signal is acted on once it returns."""
    _Signals.deferring = True
    try:
        yield
    finally:
        _Signals.deferring = False
    if _Signals.pending:
        _Signals.pending = False
        raise KeyboardInterrupt


def run_job(
    job: Job,
    tasks: Sequence[Task] | Sequence[Shape],
    *,
    workers: int = 1,
    scheduler: str | None = None,
    folder: str | None = None,
    progress: Callable[[int, str, dict], None] | None = None,
) -> list[dict]:
    """The results of all tasks, in task order. ``workers`` <= 1 without a scheduler: in this process.
    ``progress(I, NAME, RESULT)`` is called as each task finishes (I: the tasks done before it, resumed
    ones included).
    Interrupted (KeyboardInterrupt), it raises :class:`Interrupted` with the results of the finished tasks;
    a Dask cluster it started is closed first."""
    results: dict[Task | Shape, dict] = {}
    todo = []
    for task in tasks:
        saved = _saved(folder, job, task)
        if saved is not None:
            results[task] = saved
        else:
            todo.append(task)
    done = len(results)
    try:
        with _interrupting():
            if todo and (scheduler or workers > 1):
                done = _run_dask(job, todo, workers, scheduler, folder, results, progress, done)
            else:
                for task in todo:
                    results[task] = check_task(job, task)
                    _save(folder, job, task, results[task])
                    done += 1
                    if progress:
                        progress(done - 1, task.name, results[task])
    except KeyboardInterrupt:  # the tasks finished so far (results is filled as each one finishes)
        raise Interrupted([results[t] for t in tasks if t in results]) from None
    return [results[t] for t in tasks]


def _run_dask(
    job: Job,
    todo: list,
    workers: int,
    scheduler: str | None,
    folder: str | None,
    results: dict,
    progress: Callable[[int, str, dict], None] | None,
    done: int,
) -> int:
    from .extras import require

    distributed = require("distributed", extra="dask", purpose="running verify on several workers")
    cluster = None
    try:
        if scheduler:
            try:
                with _deferred():
                    client = distributed.Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as exc:
                raise UsageError(
                    "no Dask scheduler answers at " + str(scheduler) + f": {exc}",
                    hint="give the address a dask scheduler prints, e.g. tcp://127.0.0.1:8786",
                ) from None
        else:
            with _deferred():
                cluster = distributed.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # no dashboard, but the scheduler still serves HTTP (health checks): on a port of its
                    # own, so that a second run beside another cluster warns of no "Port 8787 is already in use"
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR,
                )
                client = distributed.Client(cluster)
        try:
            with _deferred():
                futures = {client.submit(check_task, job, task, pure=False): task for task in todo}
            for future in distributed.as_completed(list(futures)):  # waits interruptibly between results
                task = futures[future]
                with _deferred():
                    results[task] = future.result()
                _save(folder, job, task, results[task])
                done += 1
                if progress:
                    progress(done - 1, task.name, results[task])
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
    return done
