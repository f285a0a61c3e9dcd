"""Chapter 12's recorded experiments as jobs: the settings, the jobs, their dependencies.

The jobs form the R1 pipeline (`r1_pipeline`) and the objective comparison (`rl_reasoner`):

    base4 ─► cold ─► rl_<objective>_s<seed>  (grpo, dr_grpo, dapo, gspo, cispo; seeds 0, 1)
      │                 └─ rl_grpo_s0 ─► rs (rejection sampling) ─► stage3 ─► stage4_s0
      └────► zero_s<seed>  (R1-Zero: RL straight from the base)
    base2 ─► distill (SFT on rs's verified teacher chains)      vs  student_rl_s<seed>
    budget  (accuracy vs thinking budget: chapter 2's reasoner, `tiny_reasoner`, and two others)
    every job above ─► r1_runs (data/r1_runs.json and the cold-start model data/r1_cold_start.*)
    tiny_reasoner ─► r1_exercise3 (chapter 12's exercise 3, data/r1_exercise3.json)

A job is a pure function of its settings and of its dependencies' outputs: it receives them as
arguments (never reads another job's files), and returns an `Output` -- its record (settings,
per-step statistics, held-out evaluations, wall and CPU seconds) and, when it trains a model,
the checkpoint's bytes. `graph` lists the jobs whose records data/r1_runs.json gathers; the
whole graph of data/, these jobs included, is `data_jobs.graph`, which `job_graph` schedules
(on Ray) and `scripts/make_data.py` runs. Every job runs on one thread and is seeded, so the
same machine reproduces its record bit for bit however the graph is scheduled. Held-out
evaluations all use the same problems (`held_out_problems(eval_problems, seed=eval_seed)`) and
sampling seed, at temperature 1.
"""

from __future__ import annotations

import json
import os
import platform
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch

from checks import (
    require_choice,
    require_float,
    require_instance,
    require_int,
    require_plain_name,
    require_seed,
    require_str,
)
from data_paths import R1_COLD_START_PATH, R1_EXERCISE3_PATH, R1_RUNS_PATH
from job_graph import Job, Output
from objectives import OBJECTIVES

RERUN_OBJECTIVES = ("grpo", "gspo")  # whose seed-0 job the graph runs twice (see graph())


@dataclass(frozen=True)
class Settings:
    """Every size of the recorded runs; the defaults are the book's (under two hours on 2 cores)."""

    pretrain_steps: int = 800
    pretrain_batch: int = 128
    final_eval_samples: int = 128  # per problem, for the models that pretraining and SFT make
    rl_steps: int = 80  # RL steps per run (16 prompts x 16 chains each)
    eval_every: int = 20  # held-out check-ups during a run
    curve_samples: int = 8  # samples per problem at each check-up
    final_samples: dict = field(default_factory=lambda: {0: 128, 1: 32})  # by seed
    eval_problems: int = 500
    eval_seed: int = 2024
    cold_start: dict = field(
        default_factory=lambda: {"examples": 512, "steps": 40, "batch_size": 32, "lr": 3e-4}
    )
    rejection: dict = field(
        default_factory=lambda: {"problems": 2000, "samples_per_problem": 8, "problem_seed": 11}
    )
    sft_large: dict = field(  # stage 3 and distillation
        default_factory=lambda: {"steps": 300, "batch_size": 64, "lr": 1e-3}
    )
    budgets: tuple = (0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48)
    seeds: tuple = (0, 1)
    rl_overrides: dict = field(default_factory=dict)  # RLConfig fields (smaller runs in tests)

    def __post_init__(self) -> None:
        # Settings arrive from the command line and from tests: refuse a bad one before any job.
        for name in ("pretrain_steps", "pretrain_batch", "final_eval_samples", "rl_steps"):
            require_int(name, getattr(self, name), low=1, high=10**6)
        for name in ("eval_every", "curve_samples", "eval_problems"):
            require_int(name, getattr(self, name), low=1, high=10**6)
        require_seed("eval_seed", self.eval_seed)
        for name, keys in (
            ("cold_start", ("examples", "steps", "batch_size", "lr")),
            ("rejection", ("problems", "samples_per_problem", "problem_seed")),
            ("sft_large", ("steps", "batch_size", "lr")),
        ):
            value = getattr(self, name)
            if not isinstance(value, dict) or set(value) != set(keys):
                raise ValueError(f"{name} must be a dict with keys {keys}, got {value!r:.80}")
            for key in keys:  # every nested value too: a NaN lr would surface mid-training
                label = f"{name}[{key!r}]"
                if key == "lr":
                    require_float(label, value[key], low=0.0, low_open=True, high=1.0)
                elif key == "problem_seed":
                    require_seed(label, value[key])
                else:
                    require_int(label, value[key], low=1, high=10**6)
        for name in ("budgets", "seeds"):
            value = getattr(self, name)
            if not isinstance(value, tuple) or not value:
                raise TypeError(f"{name} must be a non-empty tuple, got {value!r:.80}")
            for item in value:
                require_int(name, item, low=0, high=10**6)
        if not isinstance(self.final_samples, dict) or not set(self.seeds) <= set(
            self.final_samples
        ):
            raise ValueError(f"final_samples must give a sample count for every seed {self.seeds}")
        for n in self.final_samples.values():
            require_int("final_samples", n, low=1, high=10**6)
        if not isinstance(self.rl_overrides, dict):
            raise TypeError(f"rl_overrides must be a dict, got {type(self.rl_overrides).__name__}")
        _check_rl_overrides(self.rl_overrides)

    @classmethod
    def smoke(cls) -> Settings:
        """A graph of the same shape in seconds: the scheduler's equivalence test runs it."""
        return cls(
            pretrain_steps=3,
            pretrain_batch=8,
            final_eval_samples=2,
            rl_steps=2,
            eval_every=1,
            curve_samples=1,
            final_samples={0: 2, 1: 2},
            eval_problems=4,
            cold_start={"examples": 16, "steps": 2, "batch_size": 8, "lr": 3e-4},
            rejection={"problems": 4, "samples_per_problem": 2, "problem_seed": 11},
            sft_large={"steps": 2, "batch_size": 8, "lr": 1e-3},
            budgets=(0, 8),
            seeds=(0,),
            rl_overrides={"prompts_per_step": 2, "group_size": 4},
        )


def _check_rl_overrides(overrides: dict) -> None:
    """Every key an RLConfig field (not ``objective``: the job sets it), every value one that
    each objective's config accepts."""
    from dataclasses import fields

    from rl_reasoner import RLConfig

    known = {f.name for f in fields(RLConfig)} - {"objective"}
    unknown = sorted(str(k) for k in overrides if k not in known)
    if unknown:
        raise ValueError(
            f"rl_overrides has keys {unknown} that are not RLConfig fields (the job sets "
            f"'objective'); they are {sorted(known)}"
        )
    for objective in OBJECTIVES:
        try:
            RLConfig.preset(objective, **overrides)
        except (TypeError, ValueError) as err:
            raise type(err)(f"rl_overrides: {err} (objective {objective})") from None


# ---------------------------------------------------------------------------------------------
# Models travel between jobs as checkpoint bytes (fp16, as on disk), so a job that starts from
# a dependency's model sees exactly what a job resumed from the saved file would.
# ---------------------------------------------------------------------------------------------


def _require_job(name: object, s: object, **outputs: object) -> None:
    """The arguments every job takes: its name, the settings, its dependencies' outputs."""
    require_str("name", name)
    if not isinstance(s, Settings):
        raise TypeError(f"s must be a Settings, got {type(s).__name__}")
    for arg, value in outputs.items():
        if not isinstance(value, Output):
            raise TypeError(f"{arg} must be a dependency's Output, got {type(value).__name__}")


def model_output(name: str, record: dict, model) -> Output:
    """A job's output with `model`'s checkpoint (`<name>.json` and `.bin`)."""
    from tiny_gpt import save_checkpoint

    require_plain_name("name", name)  # before the checkpoint is written to <tmp>/<name>.json
    if not isinstance(record, dict):
        raise TypeError(f"record must be a dict, got {type(record).__name__}")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.json"
        save_checkpoint(model, path)
        files = {p.name: p.read_bytes() for p in sorted(Path(tmp).iterdir())}
    return Output(name, record, files)


def model_of(output: Output):
    """The TinyGPT a dependency's output carries."""
    from tiny_gpt import load_checkpoint

    if not isinstance(output, Output):
        raise TypeError(f"output must be an Output, got {type(output).__name__}")
    for file_name in output.files:  # before anything is unpacked into the scratch folder
        require_plain_name("file name", file_name)
    names = [n for n in output.files if n.endswith(".json")]
    if len(names) != 1:
        raise ValueError(
            f"output {output.name!r} carries no checkpoint (files: {sorted(output.files)})"
        )
    (json_name,) = names
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in output.files.items():
            (Path(tmp) / name).write_bytes(data)
        return load_checkpoint(Path(tmp) / json_name)[0]


def _held_out(s: Settings) -> list[str]:
    from arithmetic_task import held_out_problems

    return held_out_problems(s.eval_problems, seed=s.eval_seed)


def _summary(ev: dict) -> dict:
    """An evaluation without its per-problem counts (for curves)."""
    return {k: v for k, v in ev.items() if k != "counts"}


class _Clock:
    """Wall and CPU seconds of a job (the load average says how busy the machine was)."""

    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        self.load = os.getloadavg()[0]
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall
        self.cpu = time.process_time() - self.cpu

    def record(self) -> dict:
        return {
            "wall_seconds": round(self.wall, 1),
            "cpu_seconds": round(self.cpu, 1),
            "threads": torch.get_num_threads(),
            "load_before": round(self.load, 2),
        }


# ---------------------------------------------------------------------------------------------
# Jobs: (name, settings, arguments..., dependencies' outputs) -> Output
# ---------------------------------------------------------------------------------------------


def job_pretrain(name: str, s: Settings, n_layer: int) -> Output:
    """Stage 0: a base model trained on the pretraining mix."""
    from r1_pipeline import PRETRAIN_MIX, evaluate, pretrain_base

    _require_job(name, s)
    require_int("n_layer", n_layer, low=1, high=12)
    with _Clock() as clock:
        model, losses = pretrain_base(
            n_layer=n_layer, steps=s.pretrain_steps, batch_size=s.pretrain_batch, seed=0
        )
    tail = losses[-50:]
    record = {
        "kind": "pretrain",
        "n_layer": n_layer,
        "mix": PRETRAIN_MIX,
        "steps": s.pretrain_steps,
        "loss_tail": sum(tail) / len(tail),
        "final": evaluate(model, _held_out(s), s.final_eval_samples, seed=s.eval_seed),
        "timing": clock.record(),
    }
    return model_output(name, record, model)


def job_sft(name: str, s: Settings, data: str, sft: dict, start: Output, pairs_from=None) -> Output:
    """Supervised fine-tuning of `start` on the cold-start set or on a rejection job's chains."""
    from r1_pipeline import cold_start_set, evaluate
    from r1_pipeline import sft as run_sft

    _require_job(name, s, start=start)
    require_choice("data", data, ("cold_start", "rs"))
    if not isinstance(sft, dict) or not {"steps", "batch_size", "lr"} <= set(sft):
        raise ValueError(f"sft must be a dict of steps, batch_size and lr, got {sft!r:.80}")
    if data == "rs" and not isinstance(pairs_from, Output):
        raise TypeError(f"pairs_from must be the rejection job's Output, got {pairs_from!r:.80}")
    model = model_of(start)
    if data == "cold_start":
        pairs = cold_start_set(s.cold_start["examples"], seed=0)
    else:
        pairs = [tuple(p) for p in pairs_from.record["pairs"]]
    with _Clock() as clock:
        # A teacher that got nothing right leaves nothing to imitate (a few-step smoke graph's
        # does): the model passes through unchanged, and the record says why.
        losses = (
            run_sft(
                model,
                pairs,
                steps=sft["steps"],
                batch_size=sft["batch_size"],
                lr=sft["lr"],
                seed=0,
            )
            if pairs
            else []
        )
    record = {
        "kind": "sft",
        "start": start.name,
        "data": data,
        "examples": len(pairs),
        **{k: sft[k] for k in ("steps", "batch_size", "lr")},
        "losses": [round(x, 4) for x in losses],
        "final": evaluate(model, _held_out(s), s.final_eval_samples, seed=s.eval_seed),
        "timing": clock.record(),
    }
    if not pairs:
        record["note"] = (
            f"{pairs_from.name} kept no chains, so no step was taken: this is {start.name}"
        )
    return model_output(name, record, model)


def job_rl(name: str, s: Settings, objective: str, seed: int, start: Output) -> Output:
    """An RL run of `objective` from `start`, with held-out check-ups every `eval_every` steps."""
    from rl_reasoner import RLConfig

    _require_job(name, s, start=start)
    require_choice("objective", objective, OBJECTIVES)
    require_seed("seed", seed)
    if seed not in s.final_samples:
        raise ValueError(
            f"seed must be one of the settings' seeds {sorted(s.final_samples)}, got {seed}"
        )
    cfg = RLConfig.preset(objective, **s.rl_overrides)
    return rl_output(name, s, cfg, seed, start, s.final_samples[seed])


def rl_output(
    name: str, s: Settings, cfg, seed: int, start: Output, final_samples: int, **extra
) -> Output:
    """Train `start`'s model with ``cfg`` for ``s.rl_steps`` steps; its record and checkpoint.

    The record holds the per-step statistics, held-out check-ups every ``s.eval_every`` steps
    (``s.curve_samples`` samples a problem), a final evaluation with ``final_samples`` samples
    a problem, the timing, and ``extra`` (what a caller adds about the run)."""
    from r1_pipeline import evaluate
    from rl_reasoner import RLConfig, config_dict, train_rl

    _require_job(name, s, start=start)
    require_instance("cfg", cfg, RLConfig)
    require_seed("seed", seed)
    require_int("final_samples", final_samples, low=1, high=10**6)
    model = model_of(start)
    held = _held_out(s)
    curve = [{"step": 0, **_summary(evaluate(model, held, s.curve_samples, seed=s.eval_seed))}]
    eval_seconds = 0.0

    def callback(step, m, row):
        nonlocal eval_seconds
        if step % s.eval_every == 0:
            t = time.perf_counter()
            point = evaluate(m, held, s.curve_samples, seed=s.eval_seed)
            curve.append({"step": step, **_summary(point)})
            eval_seconds += time.perf_counter() - t

    with _Clock() as clock:
        history = train_rl(model, cfg, s.rl_steps, seed=seed, callback=callback)
    final = evaluate(model, held, final_samples, seed=s.eval_seed)
    timing = clock.record()
    timing["train_seconds"] = round(clock.wall - eval_seconds, 1)
    record = {
        "kind": "rl",
        "start": start.name,
        "objective": cfg.objective,
        "seed": seed,
        "steps": s.rl_steps,
        "config": config_dict(cfg),
        "history": history,
        "curve": curve,
        "final": final,
        "timing": timing,
        **extra,
    }
    return model_output(name, record, model)


def job_rejection(name: str, s: Settings, teacher: Output) -> Output:
    """Stage 3's data: the teacher's sampled chains that the verifier accepts."""
    from arithmetic_task import random_problem
    from r1_pipeline import rejection_sample

    _require_job(name, s, teacher=teacher)
    r = s.rejection
    rng = random.Random(r["problem_seed"])
    problems = [random_problem(rng, "train") for _ in range(r["problems"])]
    with _Clock() as clock:
        pairs, stats = rejection_sample(
            model_of(teacher), problems, r["samples_per_problem"], seed=0
        )
    record = {
        "kind": "rejection",
        "teacher": teacher.name,
        **r,
        "stats": stats,
        "pairs": pairs,
        "timing": clock.record(),
    }
    return Output(name, record)


def job_budget(name: str, s: Settings, ch2: Output, *models: Output) -> Output:
    """Accuracy against the thinking budget (cut and extend), for chapter 2's and others' models."""
    from budget import accuracy_vs_budget

    _require_job(name, s, ch2=ch2, **{f"models[{i}]": m for i, m in enumerate(models)})
    held = _held_out(s)
    rows = []
    names = ["ch2", *(m.name for m in models)]
    with _Clock() as clock:
        for model_name, model in zip(names, map(model_of, (ch2, *models)), strict=True):
            for mode in ("cut", "extend"):
                for row in accuracy_vs_budget(model, held, list(s.budgets), mode=mode):
                    rows.append({"model": model_name, **row})
    record = {"kind": "budget", "models": names, "rows": rows, "timing": clock.record()}
    return Output(name, record)


# Chapter 12's exercise 3: a few RL steps on eight training problems, from chapter 2's reasoner.
EXERCISE3 = {
    "objective": "dr_grpo",
    "problems": 8,
    "problem_seed": 21,
    "steps": 4,
    "group_size": 8,
    "lr": 3e-4,
    "train_seed": 0,
    "eval_samples": 32,
    "eval_seed": 3,
    "threads": 2,  # as the chapter ran it before the record existed: the thread count decides bits
}


def job_exercise3(name: str, ch2: Output) -> Output:
    """Exercise 3: Dr. GRPO on eight problems alone, pass@1 on them before and after.

    Chapter 2's reasoner trains for four steps (8 chains a problem, learning rate 3e-4);
    pass@1 on the eight problems is measured with 32 seeded samples each. The record is
    data/r1_exercise3.json.
    """
    from arithmetic_task import random_problem
    from r1_pipeline import evaluate
    from rl_reasoner import RLConfig, train_rl

    require_str("name", name)
    if not isinstance(ch2, Output):
        raise TypeError(f"ch2 must be the tiny_reasoner job's Output, got {type(ch2).__name__}")
    e = EXERCISE3
    model = model_of(ch2)
    pool_rng = random.Random(e["problem_seed"])
    pool = tuple(random_problem(pool_rng, "train") for _ in range(e["problems"]))
    start = time.perf_counter()
    before = evaluate(model, pool, e["eval_samples"], seed=e["eval_seed"], ks=(1,))
    cfg = RLConfig.preset(
        e["objective"],
        prompts_per_step=e["problems"],
        group_size=e["group_size"],
        lr=e["lr"],
        problem_pool=pool,
    )
    steps = train_rl(model, cfg, steps=e["steps"], seed=e["train_seed"])
    after = evaluate(model, pool, e["eval_samples"], seed=e["eval_seed"], ks=(1,))
    record = {
        "settings": e,
        "problems": list(pool),
        "pass_at_1_before": before["pass_at_k"][1],
        "pass_at_1_after": after["pass_at_k"][1],
        "counts_before": list(before["counts"]),
        "counts_after": list(after["counts"]),
        "train_steps": steps,
        "wall_seconds": round(time.perf_counter() - start, 1),
        "machine": {"python": platform.python_version(), "torch": torch.__version__},
    }
    text = json.dumps(record, indent=1) + "\n"
    return Output(name, {"kind": "data"}, {R1_EXERCISE3_PATH.name: text.encode()})


# ---------------------------------------------------------------------------------------------
# The gathering job: every R1 record into data/r1_runs.json, the cold-start model beside it
# ---------------------------------------------------------------------------------------------


def _round(x, digits: int = 4):
    """Round floats for a compact file; NaN (no chain of that kind in a batch) becomes null."""
    if isinstance(x, float):
        return None if x != x else round(x, digits)
    if isinstance(x, dict):
        return {k: _round(v, digits) for k, v in x.items()}
    if isinstance(x, list):
        return [_round(v, digits) for v in x]
    return x


def settings_record(s: Settings) -> dict:
    """The settings block of data/r1_runs.json."""
    if not isinstance(s, Settings):
        raise TypeError(f"s must be a Settings, got {type(s).__name__}")
    return {
        "rl_steps": s.rl_steps,
        "eval_every": s.eval_every,
        "curve_samples": s.curve_samples,
        "final_samples": {str(k): v for k, v in s.final_samples.items()},
        "eval_problems": s.eval_problems,
        "eval_seed": s.eval_seed,
        "cold_start": s.cold_start,
        "rejection": s.rejection,
        "sft_large": s.sft_large,
        "budgets": list(s.budgets),
    }


def job_r1_runs(name: str, s: Settings, *runs: Output) -> Output:
    """data/r1_runs.json (every R1 record, by job name) and data/r1_cold_start.{json,bin}.

    Each record is read as JSON gives it back (as from the runs folder), floats rounded to four
    decimals; the rejection job keeps a sample of 24 chains, a rerun its final summary only.
    """
    from tiny_gpt import save_checkpoint

    _require_job(name, s, **{f"runs[{i}]": r for i, r in enumerate(runs)})
    by_name = {r.name: r for r in runs}
    if "cold" not in by_name:
        raise ValueError(f"runs must include the cold job's Output, got {sorted(by_name)[:8]}")
    records = {}
    for run_name in sorted(by_name):
        record = json.loads(json.dumps(by_name[run_name].record))
        if record["kind"] == "rejection":  # a sample of the kept chains, not all of them
            record = {**record, "pairs": record["pairs"][:24]}
        if run_name.startswith("rerun_"):  # compared step by step and by its summary only
            record = {**record, "final": _summary(record["final"])}
        records[run_name] = _round(record)
    doc = {"settings": settings_record(s), "runs": records}
    files = {R1_RUNS_PATH.name: (json.dumps(doc, separators=(",", ":")) + "\n").encode()}
    cold = json.loads(json.dumps(by_name["cold"].record))
    training = {k: cold[k] for k in ("start", "data", "examples", "steps", "batch_size", "lr")}
    metrics = {"pass_at_1": cold["final"]["pass_at_k"]["1"], "problems": s.eval_problems}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / R1_COLD_START_PATH.name
        save_checkpoint(model_of(by_name["cold"]), path, metrics=metrics, training=training)
        files |= {p.name: p.read_bytes() for p in sorted(Path(tmp).iterdir())}
    return Output(name, {"kind": "data", "records": len(records)}, files)


def graph(s: Settings | None = None) -> dict[str, Job]:
    """The jobs whose records data/r1_runs.json gathers, by name, with their dependencies.

    `budget` also needs `tiny_reasoner` (chapter 2's reasoner), a job of `data_jobs.graph`,
    which adds the gathering job `r1_runs` and the rest of data/.
    """
    s = Settings() if s is None else s
    if not isinstance(s, Settings):
        raise TypeError(f"s must be a Settings or None, got {type(s).__name__}")
    jobs = [
        Job("base4", job_pretrain, (s, 4)),
        Job("base2", job_pretrain, (s, 2)),
        Job("cold", job_sft, (s, "cold_start", s.cold_start), ("base4",)),
        Job("rs", job_rejection, (s,), ("rl_grpo_s0",)),
        Job("stage3", job_sft, (s, "rs", s.sft_large), ("base4", "rs")),
        Job("stage4_s0", job_rl, (s, "grpo", 0), ("stage3",)),
        Job("distill", job_sft, (s, "rs", s.sft_large), ("base2", "rs")),
        Job("budget", job_budget, (s,), ("tiny_reasoner", "cold", "rl_grpo_s0")),
    ]
    for seed in s.seeds:
        for objective in OBJECTIVES:
            jobs.append(Job(f"rl_{objective}_s{seed}", job_rl, (s, objective, seed), ("cold",)))
        jobs.append(Job(f"zero_s{seed}", job_rl, (s, "grpo", seed), ("base4",)))
        jobs.append(Job(f"student_rl_s{seed}", job_rl, (s, "grpo", seed), ("base2",)))
    # Two objectives' seed-0 jobs once more, each as a job of its own: on the machine that made
    # the record a rerun must repeat it bit for bit whichever worker runs it, and chapter 12 shows
    # that it does (`r1_runs.rerun_agreement`). On another CPU the pair parts at the first sampled
    # token that lands differently (`r1_runs.other_machine`). Two, not five: each costs a full run.
    for objective in RERUN_OBJECTIVES:
        name = f"rerun_rl_{objective}_s0"
        jobs.append(Job(name, job_rl, (s, objective, 0), ("cold",)))
    return {job.name: job for job in jobs}
