"""Every file in data/ as the output of one job of one graph: a slow result is a job.

    game24 ─► beam_sweep        search_trees        vote_sims        recorded_calls
    tiny_reasoner ─► tiny_reasoner_eval
      │  multipath_reasoner ─┴─► multipath_eval
      ├─► r1_exercise3
      └─► budget ◄─ the R1 jobs (`r1_experiments.graph`) ─► r1_runs
                       └─► the debates' runs (`rl_debates.graph`) ─► rl_debates
    r1_other_machine  (its input: the first edition's R1 records, made on another machine)

A job is a function of its arguments and of its dependencies' `Output`s, and returns its own:
a small record and the bytes of the data/ files it makes (`job_graph` stores them in runs/,
and `write_data` copies them into data/). No job reads another job's file from data/: a
dependency's file arrives as bytes, so a job runs the same on a Ray worker with no shared disk.
`scripts/make_data.py` is the command line (`--jobs`, `--check`, `--alone`, `--address`).

`check` recomputes jobs (by default the `CHEAP` ones) from the files data/ ships and compares
what they make with data/: byte for byte, or, for a file that records how long it took, byte
for byte but for those timings (`TIMING_KEYS`).

To add a data file, add one line to `_entries` (its job, the files it writes, its function,
arguments, dependencies and CPUs) and a function that returns an `Output` of those files.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from arithmetic_task import ROUTES
from checks import require_callable, require_instance, require_str
from data_paths import (
    BEAM_SWEEP_PATH,
    DATA_DIR,
    GAME24_PATH,
    MULTIPATH_EVAL_PATH,
    MULTIPATH_PATH,
    R1_COLD_START_PATH,
    R1_EXERCISE3_PATH,
    R1_OTHER_MACHINE_PATH,
    R1_RUNS_PATH,
    RECORDED_CALLS_PATH,
    RL_DEBATES_PATH,
    SEARCH_TREES_PATH,
    TINY_REASONER_EVAL_PATH,
    TINY_REASONER_PATH,
    VOTE_SIMS_PATH,
    weights_of,
)
from job_graph import Job, Output, Store, execute
from r1_experiments import Settings, job_exercise3, job_r1_runs

#: The last revision whose data/r1_runs.json holds the first edition's records (made on another
#: machine on 2026-11-29) beside their reruns on this book's machine: r1_other_machine's input.
FIRST_EDITION_REV = "e92358b"
#: Jobs that take about a minute or less and record no timing: `check` reruns them by default.
CHEAP = ("game24", "beam_sweep", "search_trees", "vote_sims", "recorded_calls", "r1_other_machine")
#: Keys of a data file that say how long its job took (or how busy the machine was): the one
#: thing a rerun on the same machine does not repeat.
TIMING_KEYS = frozenset(
    {"timing", "seconds", "cpu_seconds", "wall_seconds", "load_average", "chains_per_second"}
)


def _compact(doc: object) -> bytes:
    """Compact JSON: every byte of a data file is downloaded by every reader of its page."""
    return (json.dumps(doc, separators=(",", ":")) + "\n").encode()


def _data(name: str, path: Path, content: bytes, **record: object) -> Output:
    return Output(name, {"kind": "data", **record}, {path.name: content})


def _unpacked(output: Output, folder: Path) -> Path:
    """Write a dependency's files into ``folder``; the path of its (one) .json file."""
    for file_name, data in output.files.items():
        (folder / file_name).write_bytes(data)
    (json_name,) = [n for n in output.files if n.endswith(".json")]
    return folder / json_name


# ---------------------------------------------------------------------------------------------
# Jobs: (name, arguments..., dependencies' outputs) -> Output of data/ files
# ---------------------------------------------------------------------------------------------


def job_game24(name: str) -> Output:
    """data/game24.json: every Game-of-24 puzzle of numbers 1..13, solved (`game24`)."""
    from game24 import puzzle_dataset, render_puzzle_dataset

    return _data(name, GAME24_PATH, render_puzzle_dataset(puzzle_dataset()).encode())


def job_beam_sweep(name: str, game24: Output) -> Output:
    """data/beam_sweep.json: beam width x judge error rate over every solvable puzzle."""
    from tree_of_thoughts import build_beam_sweep, render_beam_sweep

    require_instance("game24", game24, Output)
    with tempfile.TemporaryDirectory() as tmp:
        sweep = build_beam_sweep(path=_unpacked(game24, Path(tmp)))
    return _data(name, BEAM_SWEEP_PATH, render_beam_sweep(sweep).encode())


def job_search_trees(name: str) -> Output:
    """data/search_trees.json: the beam-search trees chapter 10's tree widget draws."""
    from tree_of_thoughts import search_trees

    return _data(name, SEARCH_TREES_PATH, _compact(search_trees()))


def job_vote_sims(name: str) -> Output:
    """data/vote_sims.json: the seeded Monte-Carlo dots of chapter 2's voting widgets."""
    from reasoning import vote_sims

    return _data(name, VOTE_SIMS_PATH, _compact(vote_sims()))


def job_recorded_calls(name: str) -> Output:
    """data/recorded_calls.json: each slow call a chapter reads back with `recorded()`, run."""
    from recorded import call_arguments, call_name
    from recorded_calls import recorded_calls

    calls = [
        {
            "function": call_name(fn),
            "arguments": call_arguments(fn, **kwargs),
            "result": json.loads(json.dumps(fn(**kwargs))),
        }
        for fn, kwargs in recorded_calls()
    ]
    doc = {"generated_by": "scripts/make_data.py --jobs recorded_calls", "calls": calls}
    return _data(name, RECORDED_CALLS_PATH, _compact(doc))


def job_reasoner(name: str, path: Path, routes: tuple[str, ...] | None) -> Output:
    """A tiny reasoner's checkpoint: chapter 2's recipe, single-path (``routes`` None) or
    multi-path; its metrics are measured on the weights as saved (fp16)."""
    from tiny_gpt import load_checkpoint, save_checkpoint
    from tiny_reasoners import checkpoint_metrics, train_reasoner

    require_str("name", name)
    if path not in (TINY_REASONER_PATH, MULTIPATH_PATH):
        raise ValueError(f"path must be one of the two reasoners' checkpoints, got {path!r:.80}")
    model, training = train_reasoner(0, routes, log_every=50)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / path.name
        save_checkpoint(model, out, training=training)
        shipped, _ = load_checkpoint(out)  # measure what was written: the fp16 weights
        metrics = checkpoint_metrics(shipped, routes=routes is not None)
        save_checkpoint(shipped, out, metrics=metrics, training=training)
        files = {p.name: p.read_bytes() for p in sorted(Path(tmp).iterdir())}
    return Output(name, {"kind": "data"}, files)


def _checkpoint(output: Output, tmp: Path):
    """The model a reasoner job's output carries, and its header (name, hash, metrics)."""
    from tiny_gpt import load_checkpoint

    path = _unpacked(output, tmp)
    model, meta = load_checkpoint(path)
    return model, {"json": path.name, "sha256": meta["sha256"], "metrics": meta["metrics"]}


def job_reasoner_eval(name: str, reasoner: Output) -> Output:
    """data/tiny_reasoner_eval.json: the single-path reasoner on real samples."""
    from tiny_reasoners import evaluate_reasoner

    require_instance("reasoner", reasoner, Output)
    with tempfile.TemporaryDirectory() as tmp:
        model, header = _checkpoint(reasoner, Path(tmp))
    return _data(name, TINY_REASONER_EVAL_PATH, _compact(evaluate_reasoner(model, header)))


def job_multipath_eval(name: str, single: Output, multi: Output) -> Output:
    """data/multipath_eval.json: both reasoners side by side on the same held-out problems."""
    import os
    import time

    from arithmetic_task import held_out_problems
    from tiny_reasoners import GREEDY_SEED, evaluate

    require_instance("single", single, Output)
    require_instance("multi", multi, Output)
    models, checkpoints = {}, {}
    for key, output in (("single", single), ("multi", multi)):
        with tempfile.TemporaryDirectory() as tmp:
            models[key], header = _checkpoint(output, Path(tmp))
        checkpoints[key] = {"json": header["json"], "sha256": header["sha256"]}
    problems = held_out_problems(500, seed=GREEDY_SEED)
    load_before, start = os.getloadavg()[0], time.perf_counter()
    out = evaluate(models, problems, 128, (0.5, 0.7, 1.0), seed=0, num_bootstrap=1000)
    out["checkpoints"] = checkpoints
    out["problem_seed"] = GREEDY_SEED
    out["timing"] = {
        "seconds": round(time.perf_counter() - start, 1),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    return _data(name, MULTIPATH_EVAL_PATH, _compact(out))


def job_other_machine(name: str, rev: str, first_edition: Mapping | None) -> Output:
    """data/r1_other_machine.json: how long a run and its rerun on another machine agree.

    ``first_edition`` is the document data/r1_runs.json was at ``rev``: the first edition's
    records, made on another machine, with reruns of their seed-0 jobs made on this book's
    machine from the same cold start. That machine's runs cannot be made again here, so they
    are this job's input, not a job of the graph (the command line reads them from git).
    """
    from r1_records import check_records
    from r1_runs import other_machine_record

    require_str("rev", rev)
    if first_edition is None:
        raise ValueError(
            f"first_edition is needed: the records of data/r1_runs.json at {rev} "
            "(scripts/make_data.py reads them from git)"
        )
    check_records(first_edition, "first_edition")
    record = other_machine_record(first_edition, rev)
    return _data(name, R1_OTHER_MACHINE_PATH, (json.dumps(record, indent=1) + "\n").encode())


# ---------------------------------------------------------------------------------------------
# The graph
# ---------------------------------------------------------------------------------------------


def _entries(s: Settings, edition: Mapping | None, r1: list[str]) -> list[tuple]:
    """One line per job of data/: name, the data/ files it writes, function, arguments,
    dependencies, CPUs (thread counts are the recorded files': they decide the bits)."""
    from rl_debates import gathered, job_rl_debates

    single, multi, cold = TINY_REASONER_PATH, MULTIPATH_PATH, R1_COLD_START_PATH
    both, rev = ("tiny_reasoner", "multipath_reasoner"), FIRST_EDITION_REV
    return [
        ("game24", (GAME24_PATH,), job_game24, (), (), 1),
        ("beam_sweep", (BEAM_SWEEP_PATH,), job_beam_sweep, (), ("game24",), 1),
        ("search_trees", (SEARCH_TREES_PATH,), job_search_trees, (), (), 1),
        ("vote_sims", (VOTE_SIMS_PATH,), job_vote_sims, (), (), 1),
        ("recorded_calls", (RECORDED_CALLS_PATH,), job_recorded_calls, (), (), 1),
        ("tiny_reasoner", (single, weights_of(single)), job_reasoner, (single, None), (), 2),
        ("tiny_reasoner_eval", (TINY_REASONER_EVAL_PATH,), job_reasoner_eval, (), both[:1], 2),
        ("multipath_reasoner", (multi, weights_of(multi)), job_reasoner, (multi, ROUTES), (), 2),
        ("multipath_eval", (MULTIPATH_EVAL_PATH,), job_multipath_eval, (), both, 1),
        ("r1_exercise3", (R1_EXERCISE3_PATH,), job_exercise3, (), both[:1], 2),
        ("r1_runs", (R1_RUNS_PATH, cold, weights_of(cold)), job_r1_runs, (s,), tuple(r1), 1),
        ("r1_other_machine", (R1_OTHER_MACHINE_PATH,), job_other_machine, (rev, edition), (), 1),
        ("rl_debates", (RL_DEBATES_PATH,), job_rl_debates, (s,), gathered(s), 1),
    ]


def data_files(s: Settings | None = None) -> dict[str, tuple[Path, ...]]:
    """Each job that writes data/, by name: the files it writes."""
    from r1_experiments import graph as r1_graph

    s = Settings() if s is None else s
    return {e[0]: e[1] for e in _entries(s, None, sorted(r1_graph(s)))}


def graph(s: Settings | None = None, first_edition: Mapping | None = None) -> dict[str, Job]:
    """Every job of data/, by name: the R1 jobs (`r1_experiments.graph`), the debates' runs
    (`rl_debates.graph`) and `_entries`.

    ``s`` sizes the R1 jobs (default: the book's); ``first_edition`` is r1_other_machine's input
    (see `job_other_machine`), None when that job is not to run.
    """
    from r1_experiments import graph as r1_graph
    from rl_debates import graph as debates_graph

    s = Settings() if s is None else s
    if not isinstance(s, Settings):
        raise TypeError(f"s must be a Settings or None, got {type(s).__name__}")
    if first_edition is not None and not isinstance(first_edition, Mapping):
        raise TypeError(f"first_edition must be a mapping, got {type(first_edition).__name__}")
    jobs = r1_graph(s) | debates_graph(s)  # the debates' runs reach data/ through rl_debates
    for name, _, fn, args, deps, cpus in _entries(s, first_edition, sorted(r1_graph(s))):
        jobs[name] = Job(name, fn, args, deps, cpus)
    return jobs


# ---------------------------------------------------------------------------------------------
# data/: written from the runs folder, or checked against what the graph makes
# ---------------------------------------------------------------------------------------------


def shipped_output(name: str, data_dir: Path = DATA_DIR) -> Output:
    """Job ``name``'s output as data/ ships it (its files; no record): a dependency for
    `check`, or a test's stand-in for a job too slow to rerun."""
    files = data_files().get(require_str("name", name))
    if files is None:
        raise ValueError(f"name {name!r} writes nothing into data/: it has no shipped output")
    contents = {p.name: (Path(data_dir) / p.name).read_bytes() for p in files}
    return Output(name, {"kind": "shipped"}, contents)


def write_data(
    store: Store, names: Iterable[str], data_dir: Path = DATA_DIR, log: Callable = print
) -> list[str]:
    """Copy the files of each recorded job of ``names`` that writes data/ into ``data_dir``.

    Returns the file names written. A job that writes no data/ file (an R1 run, whose record
    reaches data/ through `r1_runs`) or is not recorded is passed over.
    """
    if not isinstance(store, Store):
        raise TypeError(f"store must be a Store, got {type(store).__name__}")
    require_callable("log", log)
    ships = data_files()
    written = []
    for name in names:
        if name not in ships or not store.done(name):
            continue
        output = store.load(name)
        expected = {p.name for p in ships[name]}
        if set(output.files) != expected:
            raise ValueError(f"job {name!r} made {sorted(output.files)}, not {sorted(expected)}")
        for file_name, data in sorted(output.files.items()):
            (Path(data_dir) / file_name).write_bytes(data)
            written.append(file_name)
        log(f"wrote {', '.join(sorted(output.files))} into {Path(data_dir).name}/ ({name})")
    return written


def _without_timing(doc: object) -> object:
    """``doc`` with every `TIMING_KEYS` entry dropped, at any depth."""
    if isinstance(doc, dict):
        return {k: _without_timing(v) for k, v in doc.items() if k not in TIMING_KEYS}
    if isinstance(doc, list):
        return [_without_timing(v) for v in doc]
    return doc


def compare(made: bytes, shipped: bytes) -> str:
    """The verdict on a made file against the shipped one: "same" (byte for byte), "same but
    timings" (a JSON file equal once its timings are dropped), or "DIFFERENT"."""
    for label, value in (("made", made), ("shipped", shipped)):
        if not isinstance(value, bytes):
            raise TypeError(f"{label} must be a file's bytes, got {type(value).__name__}")
    if made == shipped:
        return "same"
    try:
        a, b = json.loads(made), json.loads(shipped)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return "DIFFERENT"
    return "same but timings" if _without_timing(a) == _without_timing(b) else "DIFFERENT"


def check(
    jobs: Mapping[str, Job],
    names: Iterable[str],
    store: Store,
    data_dir: Path = DATA_DIR,
    log: Callable = print,
) -> dict[str, str]:
    """Rerun each job of ``names`` here and compare the files it makes with ``data_dir``'s.

    A dependency that writes data/ comes from ``data_dir`` (so each file is checked against
    the files it is made from, as shipped); one that does not (an R1 run) from ``store``.
    Returns each file's verdict (`compare`).
    """
    if not isinstance(store, Store):
        raise TypeError(f"store must be a Store, got {type(store).__name__}")
    require_callable("log", log)
    ships = data_files()
    verdicts = {}
    for name in names:
        if name not in ships:
            raise ValueError(f"names: job {name!r} writes no data/ file; they are {sorted(ships)}")
        job = jobs[name]
        inputs = []
        for dep in job.deps:
            if dep in ships:
                inputs.append(shipped_output(dep, Path(data_dir)))
            elif store.done(dep):
                inputs.append(store.load(dep))
            else:
                raise ValueError(f"job {name!r} needs {dep!r}, which runs/ has not recorded")
        log(f"check {name}")
        output = execute(job, *inputs)
        for file_name, data in sorted(output.files.items()):
            path = Path(data_dir) / file_name
            verdicts[file_name] = compare(data, path.read_bytes()) if path.exists() else "MISSING"
            log(f"  {file_name}: {verdicts[file_name]}")
    return verdicts
