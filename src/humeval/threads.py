"""One thread policy for the BLAS (numpy/scipy's linear algebra), numba's parallel loops and
arrow's pool (file parsing and hashing in the readers).

Neither library knows what else the machine is doing: each starts one thread per core, so on a
2-core machine whose other core is busy, a BLAS-heavy fit runs its threads against the other
load and gets slower than one thread would be (the mixed model took 27.6–34.6 s instead of
3.3 s; issue 33's measurements). humeval therefore sizes both pools from the cores this process
may use *minus the load already running*::

    threads = max(1, min(cores, round(cores − load₁)))

where ``load₁`` is the one-minute load average (``os.getloadavg``) when humeval starts. An idle
2-core machine gets 2 threads, a busy one 1. ``--threads N`` (or ``HUMEVAL_THREADS``) fixes the
number; ``0`` means every core. Process-level parallelism (``--jobs``) is separate: each worker
process inherits the same thread count. Variables the user set (``OMP_NUM_THREADS``,
``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``, ``NUMBA_NUM_THREADS``) are left as they are
unless ``--threads`` is given.
"""

from __future__ import annotations

import numbers
import os
import sys

BLAS_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")
THREADS_HELP = ("Threads for linear algebra and compiled loops (0 = every core). Default: the cores this process may "
                "use minus the machine's one-minute load, at least 1, so a busy machine does not slow humeval down.")


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def default_threads(cores: int | None = None, load: float | None = None) -> int:
    """``max(1, min(cores, round(cores − load)))``: the idle cores, at least one."""
    cores = available_cores() if cores is None else cores
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (OSError, AttributeError):  # no load average (Windows): assume an idle machine
            load = 0.0
    return max(1, min(cores, int(round(cores - load))))


def use_threads(threads: int | None = None) -> int:
    """Apply the policy: ``None`` is the default above, ``0`` every core, ``N`` exactly N (at most
    the cores). Before numpy or numba are imported this sets the environment variables they read
    at start-up (so worker processes inherit them too); after, it limits the running pools with
    threadpoolctl and ``numba.set_num_threads``. Returns the number used."""
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 0):
        # the CLI's --threads is an IntRange(min=0); Python callers get the same rule, not an
        # environment variable set to "-1" or a float silently truncated
        raise ValueError(f"threads must be a whole number >= 0 (0 = every core) or None, not {threads!r}")
    explicit = threads is not None
    cores = available_cores()
    n = default_threads(cores) if threads is None else (cores if threads == 0 else min(int(threads), cores))
    # numba re-reads NUMBA_NUM_THREADS at every compilation and refuses a change once its pool
    # has started, so the variable is only set before numba is imported
    names = BLAS_VARIABLES + (() if "numba" in sys.modules else ("NUMBA_NUM_THREADS",))
    for name in names:
        if explicit or name not in os.environ:
            os.environ[name] = str(n)
    if "numpy" in sys.modules:
        from threadpoolctl import threadpool_limits
        threadpool_limits(limits=n)
    if "numba" in sys.modules:
        import numba
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    if "pyarrow" in sys.modules:  # arrow sizes its pool from OMP_NUM_THREADS when it is imported
        import pyarrow
        pyarrow.set_cpu_count(n)
    return n


def threads_in_use() -> dict[str, int]:
    """What the pools use now: each BLAS/OpenMP library threadpoolctl sees, and numba's threads
    (benchmarks print it beside their figures)."""
    from threadpoolctl import threadpool_info
    used = {f"{info['internal_api']}": info["num_threads"] for info in threadpool_info()}
    if "numba" in sys.modules:
        import numba
        used["numba"] = numba.get_num_threads()
    if "pyarrow" in sys.modules:
        import pyarrow
        used["arrow"] = pyarrow.cpu_count()
    return used
