"""One way to run independent tasks: in this process, in local worker processes, or on a Dask or
Ray cluster, all through joblib.

``run_tasks(function, tasks, jobs)`` is ``[function(t) for t in tasks]``. ``jobs`` = 1 runs the
tasks here, one after the other; otherwise they go to the backend chosen by the innermost
``execution(...)`` block (default ``"local"``: joblib's loky processes, ``jobs`` of them, 0 = all
cores). Inside ``execution("dask", scheduler=ADDRESS)`` the tasks go to that Dask cluster through
joblib's ``dask`` backend and a ``distributed.Client`` (without an address: a
``distributed.LocalCluster`` of ``execution(..., workers=N)`` worker processes — the command line
passes ``--jobs`` — started when first needed); inside
``execution("ray", scheduler=ADDRESS)`` to Ray through ``ray.util.joblib``. On a cluster
``jobs`` caps the tasks in flight (0 = as many as the cluster has worker threads); on Dask a
table that many tasks share is scattered to the workers once (``_call``, ``_dask_client``).

Results do not depend on the backend or the number of workers: every caller draws each task's
seed in this process before anything runs (``humeval.ranking.base.spawn_seeds`` or
``SeedSequence.generate_state``), and results come back in the order of ``tasks``.

Worker processes start from a fresh interpreter, never as a fork of this process: after numba's
parallel kernels have run, the OpenMP runtime refuses to work in a forked child and kills it.
loky starts its workers by fork + exec (a fresh interpreter), Dask's LocalCluster and Ray spawn
theirs, so numba's parallel kernels (the Bradley–Terry bootstrap) run inside the workers too;
loky caps each worker's numba/OpenMP threads at cores ÷ workers so they do not oversubscribe.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

BACKENDS = ("local", "dask", "ray")
CONNECT_TIMEOUT = 10.0  # seconds to reach a --scheduler before giving up
INSTALL = {"dask": "pip install 'humeval[dask]' (dask and distributed)", "ray": "pip install 'humeval[ray]'"}


class ExecutionError(RuntimeError):
    """The backend cannot run tasks: its package is missing or its scheduler cannot be reached.
    The message says what to do; the command line prints it as one line (exit 2)."""


@dataclass
class _Backend:
    name: str = "local"
    scheduler: str | None = None
    workers: int = 0  # workers of a cluster started here (no scheduler); 0 = all cores
    client: object = None  # dask's Client or True once ray is initialised
    cleanup: list = field(default_factory=list)


_current: contextvars.ContextVar[_Backend] = contextvars.ContextVar("humeval_backend", default=_Backend())


def _require(backend: str):
    modules = {"dask": ("dask", "distributed"), "ray": ("ray",)}.get(backend, ())
    for module in modules:
        try:
            __import__(module)
        except ImportError:
            raise ExecutionError(f"--backend {backend} needs the {module} package, which is not installed: "
                                 f"{INSTALL[backend]}") from None


@contextlib.contextmanager
def execution(backend: str = "local", scheduler: str | None = None, workers: int = 0):
    """Within the block, ``run_tasks`` with ``jobs`` ≠ 1 runs on ``backend``.

    ``scheduler``: the address of a running cluster (Dask: ``tcp://host:8786``; Ray:
    ``host:6379`` or ``auto``), reached on entry (``ExecutionError`` after ``CONNECT_TIMEOUT``
    seconds). Without it, ``"dask"`` and ``"ray"`` start a cluster on this machine with
    ``workers`` workers (0 = one per core) when the first tasks arrive, and stop it on exit; its
    workers are spawned, so a script that starts one needs ``if __name__ == "__main__":``."""
    if backend not in BACKENDS:
        raise ExecutionError(f"unknown backend {backend!r}: use one of {', '.join(BACKENDS)}")
    if scheduler and backend == "local":
        raise ExecutionError("a scheduler address needs a cluster backend: add --backend dask or --backend ray")
    _require(backend)
    state = _Backend(backend, scheduler, workers)
    token = _current.set(state)
    try:
        if scheduler:
            _connect(state)
        yield state
    finally:
        _current.reset(token)
        for close in reversed(state.cleanup):
            with contextlib.suppress(Exception):
                close()


def _reachable(backend: str, address: str):
    """Refuse a malformed ``[scheme://]HOST:PORT`` or one where nothing listens (a TCP connect
    within ``CONNECT_TIMEOUT`` s), before a cluster client retries it for minutes."""
    if backend == "ray" and address in ("auto", "local"):
        return
    example = "tcp://HOST:8786" if backend == "dask" else "HOST:6379 (or auto)"
    try:
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or port is None or " " in address:
        raise ExecutionError(f"--scheduler {address!r} is not a {backend} scheduler address: give {example}")
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as error:
        start = "`dask scheduler` and `dask worker ADDRESS`" if backend == "dask" else "`ray start --head`"
        raise ExecutionError(f"cannot reach the {backend} scheduler at {address} ({error.strerror or error}); "
                             f"start one ({start}) or check the address") from None


def _connect(state: _Backend):
    """Start or reach the cluster of ``state`` (once)."""
    if state.client is not None:
        return
    if state.scheduler:
        _reachable(state.name, state.scheduler)
    if state.name == "dask":
        state.client = _dask_client(state)
    elif state.name == "ray":
        os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")  # before ray starts its processes
        import logging

        import ray
        logging.getLogger("ray.util.multiprocessing.pool").setLevel(logging.ERROR)  # "context is not supported"
        from ray.util.joblib import register_ray
        try:
            if state.scheduler:
                ray.init(address=state.scheduler, log_to_driver=False, logging_level=logging.ERROR)
            else:
                ray.init(num_cpus=state.workers or None, log_to_driver=False, include_dashboard=False,
                         logging_level=logging.ERROR)
        except Exception as error:  # ray raises ConnectionError, RuntimeError, ValueError ... by version
            raise ExecutionError(f"cannot reach the Ray cluster at {state.scheduler}: {error}"
                                 if state.scheduler else f"cannot start Ray here: {error}") from None
        state.cleanup.append(ray.shutdown)
        register_ray()
        state.client = True


def _dask_client(state: _Backend):
    from dask.sizeof import sizeof
    from distributed import Client, LocalCluster

    from humeval.data.tables import Table
    # dask sizes an unknown object by its shell (~50 bytes); with a table's real size (its numpy
    # columns) joblib scatters a table that many tasks share once instead of sending it with each
    sizeof.register(Table, lambda table: table.nbytes)
    if state.scheduler:
        address = state.scheduler if "://" in state.scheduler else f"tcp://{state.scheduler}"
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except (OSError, TimeoutError) as error:  # it listens, but is no Dask scheduler
            raise ExecutionError(f"{state.scheduler} does not answer as a Dask scheduler within {CONNECT_TIMEOUT:g} "
                                 f"s ({type(error).__name__}: {error}); check the address") from None
        state.cleanup.append(client.close)
        return client
    cluster = LocalCluster(n_workers=state.workers or os.cpu_count(), threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster, set_as_default=False)
    state.cleanup += [cluster.close, client.close]
    return client


def _call(function, *parts):
    """``function(parts)``. A task tuple sent as separate arguments lets joblib's dask backend
    scatter a large part that many tasks share (the comparisons, by identity) to the cluster once,
    instead of shipping it with every task."""
    return function(parts)


def run_tasks(function, tasks: list, jobs: int = 1, progress=None) -> list:
    """``[function(t) for t in tasks]`` on the current backend (see the module doc) with ``jobs``
    workers (0 = all; 1 = in this process); ``progress(done, total)`` after each finished task
    (on Ray, once at the end: its joblib backend returns results only all at once).
    ``function`` and the tasks must pickle (module-level functions, plain data)."""
    total = len(tasks)
    if jobs == 1 or total <= 1:
        results = []
        for done, task in enumerate(tasks, 1):
            results.append(function(task))
            if progress:
                progress(done, total)
        return results
    from joblib import Parallel, delayed, parallel_config
    state = _current.get()
    if state.name == "local":
        config = parallel_config(backend="loky", n_jobs=jobs if jobs > 0 else -1)
    else:
        _connect(state)
        config = (parallel_config(backend="dask", n_jobs=jobs or -1, client=state.client) if state.name == "dask"
                  else parallel_config(backend="ray", n_jobs=jobs or -1))
    spread = state.name == "dask"  # a tuple's parts as arguments: joblib scatters a large shared part once
    calls = (delayed(_call)(function, *task) if spread and isinstance(task, tuple) else delayed(function)(task)
             for task in tasks)
    with config:
        if state.name == "ray":  # ray's joblib backend cannot hand results over one by one
            results = Parallel()(calls)
            if progress:
                progress(total, total)
            return results
        results = []
        for done, result in enumerate(Parallel(return_as="generator")(calls), 1):
            results.append(result)
            if progress:
                progress(done, total)
    return results
