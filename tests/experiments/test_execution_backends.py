"""The execution layer (``humeval.experiments.parallel``): the same compare-models and plan tables
whatever the backend and worker count, numba's parallel kernels inside worker processes, errors
from workers arriving whole, and one clear line when a backend cannot run."""

from __future__ import annotations

import json
import socket
import sys

import click
import numpy as np
import pytest
from click.testing import CliRunner
from conftest import command_tree

from humeval.cli import cli
from humeval.errors import InputError
from humeval.experiments import bootstrap, parallel
from humeval.experiments.parallel import ExecutionError, execution, run_tasks
from humeval.ranking import Bojar, IRTGaussian
from humeval.simulate import simulate_competition

GRID = ["-m", "bt,davidson,irt-gaussian", "--sizes", "100,400", "--trials", "2", "--min-test", "600", "--json"]


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    path = tmp_path_factory.mktemp("execution") / "campaign.csv"
    result = run("simulate", path, "--systems", 6, "--judgments", 2000, "--random-state", 5, "--quiet")
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def sequential(campaign):
    result = run("compare-models", campaign, *GRID, "--jobs", 1)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _square_or_refuse(x):
    if x < 0:
        raise InputError("tasks.csv", x, "a negative task", "give a positive one")
    return x * x


def test_compare_models_on_two_local_processes_gives_the_sequential_table(campaign, sequential):
    result = run("compare-models", campaign, *GRID, "--jobs", 2)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == sequential
    # the table holds real perplexities: each model beats the uniform model's 3 on 400 comparisons
    assert all(1.5 < row["400"] < 3 for row in sequential["mean_perplexity"])


def test_compare_models_on_a_dask_local_cluster_gives_the_sequential_table(campaign, sequential):
    distributed = pytest.importorskip("distributed")
    from dask.sizeof import sizeof
    # two worker processes (processes=True), one thread each: the tasks are pickled as on a real cluster
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        result = run("compare-models", campaign, *GRID, "--backend", "dask", "--scheduler", cluster.scheduler_address)
        assert result.exit_code == 0, result.output
        with distributed.Client(cluster) as client:  # the trials ran on the cluster (how they split is dask's choice)
            logs = client.run(lambda dask_worker: dask_worker.state.executed_count)
        # from Python: a bootstrap's refits; the comparisons all tasks share are sized by their columns
        # (so joblib scatters them once), and the samples are those of the refits run here
        comparisons = simulate_competition(n_systems=4, n_judgments=300, random_state=3).comparisons
        with execution("dask", scheduler=cluster.scheduler_address):
            on_dask = bootstrap(Bojar(), comparisons, n=8, random_state=2, jobs=0)
            assert sizeof(comparisons) == comparisons.nbytes > 1000
    assert json.loads(result.output) == sequential
    assert len(logs) == 2 and sum(logs.values()) > 0
    np.testing.assert_array_equal(on_dask.samples, bootstrap(Bojar(), comparisons, n=8, random_state=2).samples)


def test_numba_parallel_bootstrap_runs_inside_worker_processes(campaign):
    # plan's pilot bootstrap runs the compiled parallel Bradley–Terry kernel here first; every simulated
    # campaign then runs it again (100 resamples for the clusters) inside a worker process
    args = ["plan", campaign, "--budget", "300,600", "--simulations", 2, "--json"]
    one, two = run(*args, "--jobs", 1), run(*args, "--jobs", 2)
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    rows = json.loads(one.output)["simulated"]
    assert json.loads(two.output)["simulated"] == rows
    assert all(1 <= row["expected clusters"] <= 6 for row in rows)


def test_active_study_campaigns_in_worker_processes_give_the_same_curves(campaign):
    # real judgments resampled pair by pair: each campaign's environment and strategy are copies in a worker
    args = ["active-study", campaign, "--strategies", "uniform,trueskill,bt-order", "--budget", 400, "--batch", 100,
            "--trials", 2, "--json"]
    one, two = run(*args), run(*args, "--jobs", 2)
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert json.loads(two.output) == json.loads(one.output)
    savings = {row["strategy"]: row for row in json.loads(one.output)["savings"]}
    assert len(savings) == 3 and all(0 < row["final spearman"] <= 1 for row in savings.values())


def test_results_keep_the_order_of_the_tasks_and_errors_arrive_whole():
    tasks = list(range(40))
    done = []
    assert run_tasks(_square_or_refuse, tasks, jobs=2, progress=lambda d, t: done.append((d, t))) \
        == [x * x for x in tasks]
    assert done[-1] == (40, 40) and len(done) == 40
    with pytest.raises(InputError, match=r"tasks.csv:-3: a negative task \(fix: give a positive one\)"):
        run_tasks(_square_or_refuse, [1, 2, -3, 4], jobs=2)


def test_an_unreachable_scheduler_is_one_line_and_exit_2(campaign, monkeypatch):
    monkeypatch.setattr(parallel, "CONNECT_TIMEOUT", 2.0)
    with socket.socket() as probe:  # a port nothing listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run("compare-models", campaign, *GRID, "--backend", "dask", "--scheduler", f"tcp://127.0.0.1:{port}")
    assert result.exit_code == 2
    assert result.output.startswith(f"error: cannot reach the dask scheduler at tcp://127.0.0.1:{port}")
    assert "dask scheduler" in result.output and "Traceback" not in result.output and "bug" not in result.output
    result = run("plan", campaign, "--backend", "dask", "--scheduler", "scheduler-without-port")
    assert result.exit_code == 2 and "is not a dask scheduler address: give tcp://HOST:8786" in result.output
    result = run("rank", campaign, "--bootstrap", 10, "--scheduler", f"127.0.0.1:{port}")
    assert result.exit_code == 2 and "a scheduler address needs a cluster backend" in result.output


def test_a_backend_whose_package_is_missing_is_one_line_and_exit_2(campaign, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    result = run("compare-models", campaign, *GRID, "--backend", "dask")
    assert result.exit_code == 2
    assert "--backend dask needs the distributed package, which is not installed: pip install 'humeval[dask]'" \
        in result.output and "Traceback" not in result.output
    with pytest.raises(ExecutionError, match="unknown backend 'spark'"):
        with execution("spark"):
            pass


def test_ray_backend_gives_the_same_bootstrap():
    pytest.importorskip("ray")
    # IRT's bootstrap refits rows (no compiled fast path), each refit a task with a seed of its own
    comparisons = simulate_competition(n_systems=4, n_judgments=200, random_state=2).comparisons
    model = IRTGaussian(iterations=60, burn_in=20, random_state=0)
    serial = bootstrap(model, comparisons, n=6, random_state=1)
    with execution("ray", workers=2):
        on_ray = bootstrap(model, comparisons, n=6, random_state=1, jobs=2)
    np.testing.assert_array_equal(on_ray.samples, serial.samples)
    assert np.isfinite(serial.samples).all() and serial.samples.std(axis=0).min() > 0


def test_every_command_with_jobs_takes_backend_and_scheduler():
    commands = dict(command_tree(cli))
    with_jobs = [name for name, c in commands.items()
                 if any("--jobs" in p.opts for p in c.params if isinstance(p, click.Option))]
    assert {"rank", "compare-models", "plan", "report", "demo", "active-study"} <= set(with_jobs)
    for name in with_jobs:
        options = {o for p in commands[name].params if isinstance(p, click.Option) for o in p.opts}
        assert {"--backend", "--scheduler"} <= options, name
