"""Run a graph of recorded experiments on Ray: on a laptop by default, on a cluster unchanged.

A `Job` is a function, its arguments and the names of the jobs it depends on; it returns an
`Output` (a JSON record and, optionally, files such as a checkpoint). Each job becomes one Ray
task whose inputs are its dependencies' outputs, passed through Ray's object store rather than
through a shared disk, so the same graph runs on one machine or on many. The driver alone
writes to disk, into a `Store`:

    runs/records/<job>.json     the record (a finished job is never recomputed)
    runs/files/<job>/<file>     the job's files (checkpoints)

A record is written only once its job has finished, and atomically (a temporary file renamed
into place), so Ctrl-C or a crash leaves every finished record intact and the next run resumes.
A job that raises is retried once; if it fails again its error is reported, the jobs that need
it are skipped, and every independent job goes on.

Ray is a dependency of the experiment scripts only: nothing the book renders imports this
module.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from checks import require_callable, require_float, require_int, require_str

ROOT = Path(__file__).resolve().parents[1]
# What a cluster's workers need of the repository: the code and data/, not runs/ or the site.
SHIP_EXCLUDES = [".git", "runs", "node_modules", "_book", "_freeze", ".quarto", "*.ipynb"]


@dataclass
class Output:
    """What a job returns: its name, its JSON record, and files by name (bytes)."""

    name: str
    record: dict
    files: dict[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        require_str("name", self.name)
        if not isinstance(self.record, dict):
            raise TypeError(f"record must be a dict, got {type(self.record).__name__}")
        if not isinstance(self.files, dict) or not all(
            isinstance(k, str) and isinstance(v, bytes) for k, v in self.files.items()
        ):
            raise TypeError("files must be a dict of file names (str) to contents (bytes)")


@dataclass(frozen=True)
class Job:
    """``fn(name, *args, *outputs of deps) -> Output``, run on ``cpus`` threads (and GPUs)."""

    name: str
    fn: Callable[..., Output]
    args: tuple = ()
    deps: tuple[str, ...] = ()
    cpus: int = 1
    gpus: float = 0  # the tiny reasoners are faster on a CPU; a job that can use one says so

    def __post_init__(self) -> None:
        require_str("name", self.name)
        require_callable("fn", self.fn)
        if not isinstance(self.args, tuple):
            raise TypeError(f"args must be a tuple, got {type(self.args).__name__}")
        if not isinstance(self.deps, tuple) or not all(isinstance(d, str) for d in self.deps):
            raise TypeError(f"deps must be a tuple of job names, got {self.deps!r:.80}")
        require_int("cpus", self.cpus, low=1, high=1024)
        require_float("gpus", self.gpus, low=0.0, high=1024.0)


class Store:
    """Finished jobs on disk, under ``root`` (records/ and files/)."""

    def __init__(self, root: str | Path) -> None:
        if not isinstance(root, (str, Path)) or not str(root):
            raise TypeError(f"root must be a folder path (str or Path), got {root!r:.80}")
        self.root = Path(root)

    def record_path(self, name: str) -> Path:
        """Where job ``name``'s record is (or will be)."""
        if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
            raise ValueError(f"name must be a job name (no '/', not hidden), got {name!r:.80}")
        return self.root / "records" / f"{name}.json"

    def done(self, name: str) -> bool:
        """Whether job ``name`` is recorded."""
        return self.record_path(name).exists()

    def save(self, output: Output) -> None:
        """Files first, the record last: a record on disk means the job is complete."""
        if not isinstance(output, Output):
            raise TypeError(f"output must be an Output, got {type(output).__name__}")
        folder = self.root / "files" / output.name
        for file_name, data in output.files.items():
            _atomic_write(folder / file_name, data)
        _atomic_write(self.record_path(output.name), json.dumps(output.record).encode())

    def load(self, name: str) -> Output:
        """A recorded job's output, as it was saved."""
        if not self.done(name):
            raise ValueError(f"name {name!r} is not recorded under {self.root}")
        record = json.loads(self.record_path(name).read_text())
        folder = self.root / "files" / name
        files = (
            {p.name: p.read_bytes() for p in sorted(folder.glob("*"))} if folder.exists() else {}
        )
        return Output(name, record, files)


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def execute(job: Job, *inputs: Output) -> Output:
    """Run one job here, on its thread count: what a Ray worker does, and what a test compares."""
    import torch

    if not isinstance(job, Job):
        raise TypeError(f"job must be a Job, got {type(job).__name__}")
    if not all(isinstance(i, Output) for i in inputs) or len(inputs) != len(job.deps):
        raise TypeError(f"inputs must be the Outputs of the job's {len(job.deps)} dependencies")
    torch.set_num_threads(job.cpus)
    output = job.fn(job.name, *job.args, *inputs)
    if not isinstance(output, Output) or output.name != job.name:
        raise TypeError(f"job {job.name} must return its Output, got {output!r:.80}")
    return output


def run_alone(jobs: Mapping[str, Job], store: Store, selected: Iterable[str]) -> None:
    """Run the selected jobs (and the missing ones they need) one after another, in-process."""
    _check_graph(jobs, store)
    for name in _closure(jobs, store, selected):
        job = jobs[name]
        store.save(execute(job, *(store.load(d) for d in job.deps)))


def _closure(jobs: Mapping[str, Job], store: Store, selected: Iterable[str]) -> list[str]:
    """The selected jobs not yet done, with every unfinished job they need, in dependency order."""
    if isinstance(selected, (str, bytes)) or not isinstance(selected, Iterable):
        raise TypeError(f"selected must be a list of job names, got {selected!r:.80}")
    selected = list(selected)
    if not all(isinstance(n, str) for n in selected):
        raise TypeError(f"selected must be a list of job names, got {selected!r:.80}")
    unknown = [n for n in selected if n not in jobs]
    if unknown:
        raise ValueError(f"selected jobs {unknown} are not in the graph; it has {sorted(jobs)}")
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise ValueError(f"the job graph has a cycle: {' -> '.join((*path, name))}")
        if name in order or store.done(name):
            return
        for dep in jobs[name].deps:
            visit(dep, (*path, name))
        order.append(name)

    for name in selected:
        visit(name, ())
    return order


def _check_graph(jobs: object, store: object) -> None:
    if not isinstance(jobs, Mapping) or not all(
        isinstance(j, Job) and j.name == n for n, j in jobs.items()
    ):
        raise TypeError("jobs must map each job's name to its Job")
    if not isinstance(store, Store):
        raise TypeError(f"store must be a Store, got {type(store).__name__}")


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


def run_graph(
    jobs: Mapping[str, Job],
    store: Store,
    selected: Iterable[str] | None = None,
    *,
    address: str | None = None,
    workers: int | None = None,
    expected_seconds: Mapping[str, float] | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, str]:
    """Run the selected jobs (default: all) and whatever unfinished jobs they need, on Ray.

    ``address`` joins an existing cluster (``ray start --head`` printed it); without it Ray
    starts on this machine with ``workers`` CPUs (default: all its cores). The repository's code
    and data/ are shipped to the workers, so nothing else changes on a cluster.
    ``expected_seconds`` (a previous run's wall times) makes the progress line's estimate.
    Returns each failed or skipped job's error; finished jobs are in the store.
    """
    _check_graph(jobs, store)
    if address is not None:
        require_str("address", address)
    if workers is not None:
        require_int("workers", workers, low=1, high=4096)
    if expected_seconds is not None and not isinstance(expected_seconds, Mapping):
        raise TypeError(
            f"expected_seconds must be a mapping, got {type(expected_seconds).__name__}"
        )
    require_callable("log", log)
    import ray

    todo = _closure(jobs, store, selected if selected is not None else list(jobs))
    if not todo:
        log("every selected job is already recorded")
        return {}
    runtime_env = {
        "working_dir": str(ROOT),
        "excludes": SHIP_EXCLUDES,
        "env_vars": {"PYTHONPATH": "code", "OMP_NUM_THREADS": "1"},
    }
    options = {"runtime_env": runtime_env, "log_to_driver": False}
    if address is None:
        options |= {"num_cpus": workers or os.cpu_count(), "include_dashboard": False}
    else:
        options["address"] = address
    _start(ray, options, log)
    try:
        return _schedule(ray, jobs, store, todo, expected_seconds or {}, log)
    finally:
        ray.shutdown()


def _start(ray, options: dict, log: Callable[[str], None], attempts: int = 3) -> None:
    """``ray.init``, tried again when the node does not come up in time.

    On a busy machine Ray's raylet gives its dashboard agent a fixed 15 s to start and then
    aborts (ray-project/ray#65983); a second attempt usually finds the imports cached.
    """
    for attempt in range(1, attempts + 1):
        try:
            ray.init(**options)
            return
        except Exception as err:  # noqa: BLE001 -- Ray raises a bare Exception here
            if "timed out during startup" not in str(err) or attempt == attempts:
                raise
            log(f"Ray did not start (attempt {attempt} of {attempts}): {err}; trying again")
            ray.shutdown()


def _schedule(ray, jobs, store, todo, expected, log) -> dict[str, str]:
    """Submit each job once its dependencies are done, while the cluster has CPUs for it."""
    remote = ray.remote(execute)
    capacity = int(ray.cluster_resources().get("CPU", 1))
    refs: dict[str, object] = {}  # finished or running jobs' outputs in the object store
    running: dict[object, str] = {}
    waiting, failed = list(todo), {}
    done: list[str] = []
    start = time.perf_counter()
    started: dict[str, float] = {}  # when each running job was submitted

    def ref_of(name: str):
        if name not in refs:  # recorded by an earlier run: put its output in the store once
            refs[name] = ray.put(store.load(name))
        return refs[name]

    def progress() -> None:
        now = time.perf_counter()
        left = sum(expected.get(n, 60.0) for n in waiting) + sum(
            max(expected.get(n, 60.0) - (now - started[n]), 0.0) for n in running.values()
        )
        eta = f", about {_clock(left / capacity)} left" if expected else ""
        log(
            f"{time.strftime('%H:%M:%S')} done {len(done)}/{len(todo)}, running "
            f"{len(running)}, waiting {len(waiting)}, failed {len(failed)}; "
            f"{_clock(time.perf_counter() - start)} elapsed{eta}"
        )

    try:
        while waiting or running:
            busy = sum(jobs[n].cpus for n in running.values())
            for name in list(waiting):
                job = jobs[name]
                if any(d in failed for d in job.deps):
                    waiting.remove(name)
                    failed[name] = f"skipped: needs {[d for d in job.deps if d in failed]}"
                    log(f"skip  {name} ({failed[name]})")
                elif all(store.done(d) for d in job.deps) and busy + job.cpus <= capacity:
                    waiting.remove(name)
                    task = remote.options(
                        name=name,
                        num_cpus=job.cpus,
                        num_gpus=job.gpus,
                        max_retries=1,
                        retry_exceptions=True,
                    )
                    ref = task.remote(job, *(ref_of(d) for d in job.deps))
                    refs[name], running[ref], started[name] = ref, name, time.perf_counter()
                    busy += job.cpus
                    log(f"start {name}")
            if not running:
                if waiting:
                    raise RuntimeError(f"jobs {waiting} need more CPUs than the cluster has")
                break
            ready, _ = ray.wait(list(running), num_returns=1, timeout=30)
            for ref in ready:
                name = running.pop(ref)
                try:
                    store.save(ray.get(ref))
                    done.append(name)
                    log(f"done  {name}")
                except Exception as err:  # noqa: BLE001 -- reported, and the graph goes on
                    failed[name] = "".join(traceback.format_exception_only(err)).strip()
                    refs.pop(name, None)
                    log(f"FAILED {name} (after one retry): {failed[name][-2000:]}")
            progress()
    except KeyboardInterrupt:
        log(f"interrupted: {len(done)} jobs recorded this run, {len(running)} abandoned")
        for ref in running:
            ray.cancel(ref, force=True)
        raise
    return failed


def main_exit_code(failed: Mapping[str, str]) -> int:
    """0 when every job finished, else 1 (after listing what did not)."""
    if not isinstance(failed, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in failed.items()
    ):
        raise TypeError(f"failed must map job names to errors (str), got {failed!r:.80}")
    for name, why in failed.items():
        print(f"not recorded: {name}: {(why.splitlines() or [''])[-1]}", file=sys.stderr)
    return 1 if failed else 0
