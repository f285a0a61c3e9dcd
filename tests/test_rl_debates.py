"""The debates' runs (`rl_debates`): each job runs the experiment its name says, seeded."""

from __future__ import annotations

import random

import pytest

from data_jobs import graph
from job_graph import Store, run_alone
from r1_experiments import Settings
from rl_debates import (
    ARMS,
    DEEP_KS,
    FEW_PROBLEMS,
    POOL_CANDIDATES,
    SPURIOUS_REWARDS,
    deep_models,
    gathered,
    informative_pool,
)
from rl_debates import graph as debates_graph
from tiny_gpt import TinyGPT, TinyGPTConfig

SMOKE = Settings.smoke()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """The smoke graph's debate runs of the first seed, recorded once for the module."""
    s = Store(tmp_path_factory.mktemp("runs"))
    names = [n for n in debates_graph(SMOKE) if n.endswith("_s0") or n.startswith("deep_")]
    assert run_alone(graph(SMOKE), s, names + ["rl_debates"]) == {}
    return s


def test_the_graph_has_every_experiment_and_the_main_ones_for_every_seed():
    jobs = debates_graph(Settings())
    assert deep_models(Settings()) == ("base4", "zero_s0", "cold", "rl_grpo_s0", "rl_grpo_s1")
    want = {f"deep_{m}" for m in deep_models(Settings())}
    first, *others = Settings().seeds
    want |= {f"spurious_{r}_{a}_s{first}" for r in SPURIOUS_REWARDS for a in ARMS}
    want |= {f"few{n}_s{first}" for n in FEW_PROBLEMS}
    for seed in others:  # the main case of each question with every seed
        want |= {f"spurious_random_{a}_s{seed}" for a in ARMS} | {f"few1_s{seed}"}
    assert set(jobs) == want
    assert set(jobs) <= set(graph(Settings()))  # and the book's one graph holds them
    every = graph(Settings())
    assert all(d in every for job in jobs.values() for d in job.deps)


def test_spurious_arms_pay_the_reward_they_name_and_clip_only_off_policy(store):
    for reward in SPURIOUS_REWARDS:
        clipped = store.load(f"spurious_{reward}_clip_s0").record
        on_policy = store.load(f"spurious_{reward}_noclip_s0").record
        assert clipped["config"]["reward"] == on_policy["config"]["reward"] == reward
        assert (clipped["config"]["inner_steps"], on_policy["config"]["inner_steps"]) == (2, 1)
        assert clipped["config"]["objective"] == "grpo" and clipped["arm"] == "clip"
        # One gradient step a batch: every ratio is 1, so the clip never acts.
        assert all(h["clip_fraction"] == 0 for h in on_policy["history"])


def test_a_few_problem_run_trains_on_its_chosen_pool_only(store):
    for n in FEW_PROBLEMS:
        record = store.load(f"few{n}_s0").record
        pool = record["pool_choice"]["pool"]
        assert len(pool) == len(set(pool)) == n
        assert record["config"]["problem_pool"] == pool


def test_deep_evaluations_count_every_sample(store):
    for model in deep_models(SMOKE):
        final = store.load(f"deep_{model}").record["final"]
        n = final["samples_per_problem"]
        assert len(final["counts"]) == SMOKE.eval_problems
        assert all(0 <= c <= n for c in final["counts"])
        assert sorted(int(k) for k in final["pass_at_k"]) == [k for k in DEEP_KS if k <= n]


def _tiny(seed=0):
    import torch

    torch.manual_seed(seed)
    return TinyGPT(TinyGPTConfig(n_layer=1, n_embd=16, n_head=2))


def test_the_pool_is_the_candidates_nearest_one_half(monkeypatch):
    import r1_pipeline

    shares = {}

    def fake_evaluate(model, problems, n, **kw):
        rng = random.Random(len(problems))
        counts = [rng.randrange(n + 1) for _ in problems]
        shares.update(zip(problems, counts, strict=True))
        return {"counts": counts}

    monkeypatch.setattr(r1_pipeline, "evaluate", fake_evaluate)
    chosen = informative_pool(_tiny(), 5, seed=1, samples=16)
    assert len(chosen["shares"]) == POOL_CANDIDATES
    distance = [abs(2 * shares[p] - 16) for p in chosen["pool"]]
    rest = [abs(2 * c - 16) for p, c in shares.items() if p not in chosen["pool"]]
    assert max(distance) <= min(rest)
    assert informative_pool(_tiny(), 5, seed=1, samples=16) == chosen  # seeded


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="model"):
        informative_pool("model", 1, 0)
    with pytest.raises(ValueError, match="n"):
        informative_pool(_tiny(), 0, 0)
    with pytest.raises(TypeError, match="s must be a Settings"):
        deep_models(None)


def test_the_gathered_file_holds_what_the_jobs_recorded(store):
    import json

    import debate_findings
    from data_paths import RL_DEBATES_PATH

    doc = json.loads(store.load("rl_debates").files[RL_DEBATES_PATH.name])
    assert set(doc["wall_seconds"]) == {n for n in gathered(SMOKE) if not n.startswith("deep_")}
    for model in deep_models(SMOKE):
        final = store.load(f"deep_{model}").record["final"]
        assert doc["deep"][model]["counts"] == final["counts"]
    samples = doc["settings"]["deep_samples"]
    assert doc["settings"]["deep_ks"] == [k for k in DEEP_KS if k <= samples]
    for name in (n for n in gathered(SMOKE) if n.startswith(("spurious_", "few", "rl_grpo"))):
        record = store.load(name).record
        run = doc["runs"][name]
        assert run["final"]["counts"] == record["final"]["counts"]
        assert run["reward"] == record["config"]["reward"] and run["seed"] == record["seed"]
        assert [h["step"] for h in run["history"]] == [h["step"] for h in record["history"]]
    assert len(doc["held_out"]) == len(set(doc["held_out"])) == SMOKE.eval_problems
    # The reader checks for the book's five models; the smoke graph has one seed, so four.
    with pytest.raises(ValueError, match="missing"):
        debate_findings.check_debates(doc)


def test_gathering_refuses_a_missing_run(store):
    from rl_debates import job_rl_debates

    outputs = [store.load(n) for n in gathered(SMOKE) if n != "few1_s0"]
    with pytest.raises(ValueError, match="few1_s0"):
        job_rl_debates("rl_debates", SMOKE, *outputs)
