"""Run a graph of recorded experiments on Ray: on a laptop by default, on a cluster unchanged.

A `Job` is a function, its arguments and the names of the jobs it depends on; it returns an
`Output` (a JSON record and, optionally, files such as a checkpoint). Each job becomes one Ray
task whose inputs are its dependencies' outputs, passed through Ray's object store rather than
through a shared disk, so the same graph runs on one machine or on many. The driver alone
writes to disk, into a `Store`:

    runs/records/<job>.json     the record (a finished job is never recomputed)
    runs/files/<job>/<file>     the job's files (checkpoints)

Job and file names are plain names (no separator, no `..`), so nothing is written outside the
folder. A record is written only once its job has finished, after its files, and atomically (a
temporary file renamed into place), so Ctrl-C or a crash leaves every finished record intact and
the next run resumes. It carries the SHA-256 of its own content and of each file: a record that
does not match (a truncated write, a bad disk, a hand edit) is reported by path and its job runs
again; it is never used. The folder is checked writable before the first job; a save that fails
(a full disk) stops the run with the OSError, and the records already finished stay.
A job that raises is retried once on Ray; if it fails again its error is reported, the jobs that
need it are skipped, and every independent job goes on (alone, the same without the retry).

Ray is a dependency of the experiment scripts only: nothing the book renders imports this
module.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from checks import require_callable, require_float, require_int, require_plain_name, require_str

ROOT = Path(__file__).resolve().parents[1]
# What a cluster's workers need of the repository: the code and data/, not runs/ or the site.
SHIP_EXCLUDES = [".git", "runs", "node_modules", "_book", "_freeze", ".quarto", "*.ipynb"]
# Refuse to start with less free space than this: the full graph's records and checkpoints take
# about 50 MB, and a disk that fills mid-run costs the job that was saving.
MIN_FREE_BYTES = 64 * 2**20


class StoreError(OSError):
    """The runs folder cannot be written: not a folder, read-only, or full."""


@dataclass
class Output:
    """What a job returns: its name, its JSON record, and files by name (bytes)."""

    name: str
    record: dict
    files: dict[str, bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_output(self)


def _check_output(output: Output) -> None:
    """An Output's name and file names are plain names; checked again before a save (the
    dataclass is mutable)."""
    require_plain_name("name", output.name)
    if not isinstance(output.record, dict):
        raise TypeError(f"record must be a dict, got {type(output.record).__name__}")
    if not isinstance(output.files, dict) or not all(
        isinstance(k, str) and isinstance(v, bytes) for k, v in output.files.items()
    ):
        raise TypeError("files must be a dict of file names (str) to contents (bytes)")
    for file_name in output.files:
        require_plain_name("file name", file_name)


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
        require_plain_name("name", self.name)
        require_callable("fn", self.fn)
        if not isinstance(self.args, tuple):
            raise TypeError(f"args must be a tuple, got {type(self.args).__name__}")
        if not isinstance(self.deps, tuple) or not all(isinstance(d, str) for d in self.deps):
            raise TypeError(f"deps must be a tuple of job names, got {self.deps!r:.80}")
        require_int("cpus", self.cpus, low=1, high=1024)
        require_float("gpus", self.gpus, low=0.0, high=1024.0)


class Store:
    """Finished jobs on disk, under ``root`` (records/ and files/).

    A record file holds ``{"sha256": ..., "record": ..., "files": {name: sha256}}``; the first
    hash covers the other two keys as written, the others each file's bytes. `load` returns only
    what matches; `done` is true only for a record that does.
    """

    def __init__(self, root: str | Path) -> None:
        if not isinstance(root, (str, Path)) or not str(root):
            raise TypeError(f"root must be a folder path (str or Path), got {root!r:.80}")
        if "\0" in str(root):
            raise ValueError(f"root must be a folder path without NUL bytes, got {root!r:.80}")
        self.root = Path(root)
        self._verified: dict[str, tuple] = {}  # name -> the stat of its checked files

    def record_path(self, name: str) -> Path:
        """Where job ``name``'s record is (or will be)."""
        return self.root / "records" / f"{require_plain_name('name', name)}.json"

    def damage(self, name: str) -> str | None:
        """What is wrong with job ``name``'s record on disk, or None if it is sound or absent."""
        path = self.record_path(name)
        if not path.exists():
            return None
        try:
            self._read(name)
        except ValueError as err:
            return str(err)
        return None

    def done(self, name: str) -> bool:
        """Whether job ``name`` is recorded, and its record and files are undamaged."""
        if not self.record_path(name).exists():
            return False
        try:
            self._read(name, verify_only=True)
        except ValueError:
            return False
        return True

    def check_writable(self) -> None:
        """Raise `StoreError` now, before any job computes, if records cannot be saved here."""
        try:
            for sub in ("records", "files"):
                (self.root / sub).mkdir(parents=True, exist_ok=True)
            probe = self.root / "records" / ".write-probe"
            _atomic_write(probe, b"probe")
            probe.unlink()
            free = shutil.disk_usage(self.root).free
        except OSError as err:
            raise StoreError(f"the runs folder {self.root} is not writable: {err}") from err
        if free < MIN_FREE_BYTES:
            raise StoreError(
                f"the runs folder {self.root} has {free / 2**20:.0f} MB free, less than the "
                f"{MIN_FREE_BYTES // 2**20} MB the records and checkpoints need"
            )

    def save(self, output: Output) -> None:
        """Files first, the record last: a sound record on disk means the job is complete.

        Every name is checked before a byte is written; an OSError (a full disk) is raised as
        `StoreError`, naming the job, and leaves no temporary file behind.
        """
        if not isinstance(output, Output):
            raise TypeError(f"output must be an Output, got {type(output).__name__}")
        _check_output(output)
        body = {
            "record": output.record,
            "files": {n: _sha256(d) for n, d in sorted(output.files.items())},
        }
        text = json.dumps(body)  # a record that is not JSON fails here, before any write
        doc = json.dumps({"sha256": _sha256(text.encode()), **body}).encode()
        folder = self.root / "files" / output.name
        try:
            for file_name, data in output.files.items():
                _atomic_write(folder / file_name, data)
            _atomic_write(self.record_path(output.name), doc)
        except OSError as err:
            raise StoreError(
                f"could not save job {output.name!r} under {self.root}: {err}"
            ) from err
        self._verified.pop(output.name, None)

    def load(self, name: str) -> Output:
        """A recorded job's output, as it was saved; a damaged record raises, naming its path."""
        if not self.record_path(name).exists():
            raise ValueError(f"name {name!r} is not recorded under {self.root}")
        record, files = self._read(name)
        return Output(name, record, files)

    def _read(self, name: str, verify_only: bool = False) -> tuple[dict, dict[str, bytes]]:
        path = self.record_path(name)
        folder = self.root / "files" / name

        def damaged(why: str) -> ValueError:
            self._verified.pop(name, None)
            return ValueError(
                f"damaged record {path}: {why}; it is not used, and the next run recomputes "
                f"job {name!r} (or delete the file)"
            )

        stat = path.stat()
        if verify_only and name in self._verified:  # unchanged since it was last checked
            sig, file_names = self._verified[name]
            if sig == _signature(path, folder, file_names):
                return {}, {}
        raw = path.read_bytes()
        try:
            doc = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise damaged(f"not JSON ({err}), {stat.st_size} bytes: a truncated write?") from None
        if not isinstance(doc, dict) or set(doc) != {"sha256", "record", "files"}:
            raise damaged("not a record of this store (keys sha256, record, files)")
        body = {"record": doc["record"], "files": doc["files"]}
        if not isinstance(doc["record"], dict) or not isinstance(doc["files"], dict):
            raise damaged("record and files must be objects")
        if _sha256(json.dumps(body).encode()) != doc["sha256"]:
            raise damaged("its content does not match its checksum")
        files = {}
        for file_name, digest in doc["files"].items():
            try:
                require_plain_name("file name", file_name)
                data = (folder / file_name).read_bytes()
            except (ValueError, OSError) as err:
                raise damaged(f"its file {file_name} cannot be read: {err}") from None
            if _sha256(data) != digest:
                raise damaged(f"its file {folder / file_name} does not match its checksum")
            files[file_name] = data
        self._verified[name] = (_signature(path, folder, sorted(files)), sorted(files))
        return doc["record"], files


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _signature(path: Path, folder: Path, file_names: list[str]) -> tuple:
    """Size and modification time of a record and its files: what `done` re-checks cheaply."""
    try:
        return tuple(
            (p.stat().st_size, p.stat().st_mtime_ns)
            for p in [path, *(folder / n for n in file_names)]
        )
    except OSError:
        return ()


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all: a hidden temporary file, synced, then renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def execute(job: Job, *inputs: Output) -> Output:
    """Run one job here, on its thread count: what a Ray worker does, and what a test compares."""
    import torch

    if not isinstance(job, Job):
        raise TypeError(f"job must be a Job, got {type(job).__name__}")
    if not all(isinstance(i, Output) for i in inputs) or len(inputs) != len(job.deps):
        raise TypeError(f"inputs must be the Outputs of the job's {len(job.deps)} dependencies")
    torch.set_num_threads(job.cpus)
    output = job.fn(job.name, *job.args, *inputs)
    # The hook's return value is what the store saves under the job's name: check it here.
    if not isinstance(output, Output) or output.name != job.name:
        raise TypeError(
            f"fn of job {job.name!r} must return an Output named {job.name!r}, got {output!r:.80}"
        )
    return output


def run_alone(
    jobs: Mapping[str, Job],
    store: Store,
    selected: Iterable[str],
    *,
    log: Callable[[str], None] = print,
) -> dict[str, str]:
    """Run the selected jobs (and the missing ones they need) one after another, in-process.

    As on Ray, a job that raises is reported and the jobs that need it are skipped while every
    independent job goes on; a save that fails (`StoreError`) stops the run. Returns each failed
    or skipped job's error.
    """
    _check_graph(jobs, store)
    require_callable("log", log)
    todo = _closure(jobs, store, selected, log)
    if todo:
        store.check_writable()
    failed: dict[str, str] = {}
    for name in todo:
        job = jobs[name]
        blocked = [d for d in job.deps if d in failed]
        if blocked:
            failed[name] = f"skipped: needs {blocked}"
            log(f"skip  {name} ({failed[name]})")
            continue
        log(f"start {name}")
        try:
            output = execute(job, *(store.load(d) for d in job.deps))
        except Exception as err:  # noqa: BLE001 -- reported, and the graph goes on
            failed[name] = "".join(traceback.format_exception_only(err)).strip()
            log(f"FAILED {name}: {''.join(traceback.format_exception(err))[-3000:]}")
            continue
        store.save(output)
        log(f"done  {name}")
    return failed


def pending(jobs: Mapping[str, Job], store: Store, selected: Iterable[str]) -> list[str]:
    """The jobs a run of ``selected`` would compute: those not yet recorded, with every
    unrecorded job they need, in dependency order."""
    _check_graph(jobs, store)
    return _closure(jobs, store, selected, log=lambda line: None)


def _closure(
    jobs: Mapping[str, Job],
    store: Store,
    selected: Iterable[str],
    log: Callable[[str], None] = print,
) -> list[str]:
    """The selected jobs not yet done, with every unfinished job they need, in dependency order.

    A job whose record is damaged counts as not done: ``log`` says so, with the record's path.
    """
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
        damage = store.damage(name)
        if damage:
            log(f"{damage}: running it again")
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
    for name, job in jobs.items():
        for dep in job.deps:
            if dep not in jobs:
                raise ValueError(
                    f"job {name!r} depends on {dep!r}, which is not in the graph "
                    f"(it has {sorted(jobs)[:8]}{'...' if len(jobs) > 8 else ''})"
                )
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

    todo = _closure(jobs, store, selected if selected is not None else list(jobs), log)
    if not todo:
        log("every selected job is already recorded")
        return {}
    store.check_writable()  # before Ray starts and before any job computes
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
                    output = ray.get(ref)
                except Exception as err:  # noqa: BLE001 -- reported, and the graph goes on
                    failed[name] = "".join(traceback.format_exception_only(err)).strip()
                    refs.pop(name, None)
                    log(f"FAILED {name} (after one retry): {failed[name][-2000:]}")
                    continue
                try:
                    store.save(output)  # the job ran; only writing it failed
                except StoreError as err:
                    log(f"NOT SAVED {name}: {err}")
                    raise
                done.append(name)
                log(f"done  {name}")
            progress()
    except (KeyboardInterrupt, StoreError):
        log(f"stopped: {len(done)} jobs recorded this run, {len(running)} abandoned")
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
