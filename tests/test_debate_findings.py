"""debate_findings reads the debate records right: paired gaps, the crossover, reach, the run
tables, on small records whose answers are known by hand."""

from __future__ import annotations

import copy

import pytest

import debate_findings as F

PROBLEMS = ["1+2+3", "9-8-7", "4+4-1-1", "5-6+7-8+9"]


def _final(counts, samples):
    from evaluation import pass_at_k

    ks = [k for k in (1, 2, 4) if k <= samples]
    mean = {str(k): sum(pass_at_k(samples, c, k) for c in counts) / len(counts) for k in ks}
    return {"samples_per_problem": samples, "counts": counts, "pass_at_k": mean,
            "pass_at_k_ci": {k: [v - 0.1, v + 0.1] for k, v in mean.items()},
            "length_right": 20.0, "length_wrong": 30.0, "length": 25.0,
            "mode_share": {"chain": 0.9, "answer_only": 0.0, "malformed": 0.1}}


def _run(seed, reward, inner, counts, pool=()):
    hist = [{"step": s, "reward": 0.5, "accuracy": 0.2 + 0.01 * s, "clip_fraction": 0.0,
             "kl": 0.0, "length_correct": 20.0, "length_wrong": 30.0,
             "zero_advantage_groups": 0.25} for s in range(1, 21)]
    run = {"start": "cold", "seed": seed, "reward": reward, "inner_steps": inner,
           "pool": list(pool), "curve": [{"step": 0, "pass_at_1": 0.2, "ci": [0.1, 0.3]}],
           "history": hist, "final": _final(counts, 4), "wall_seconds": 60.0}
    if pool:
        run["pool_shares"] = [0.5] * len(pool)
    return run


def doc() -> dict:
    deep = {"base4": _final([2, 0, 1, 4], 4), "zero_s0": _final([3, 1, 0, 4], 4),
            "cold": _final([1, 0, 1, 2], 4), "rl_grpo_s0": _final([4, 0, 0, 4], 4),
            "rl_grpo_s1": _final([3, 1, 1, 3], 4)}
    runs = {"rl_grpo_s0": _run(0, "verifiable", 2, [4, 0, 0, 4]),
            "rl_grpo_s1": _run(1, "verifiable", 2, [3, 1, 1, 3]),
            "spurious_random_clip_s0": _run(0, "random", 2, [2, 0, 1, 2]),
            "spurious_random_noclip_s0": _run(0, "random", 1, [1, 0, 1, 2]),
            "few1_s0": _run(0, "verifiable", 2, [2, 0, 1, 3], pool=("1+1+1",))}
    settings = {"deep_ks": [1, 2, 4], "deep_samples": 4, "run_final_samples": 4, "rl_steps": 20}
    return {"settings": settings, "held_out": PROBLEMS, "deep": deep,
            "runs": runs, "wall_seconds": {"few1_s0": 60.0, "rl_grpo_s0": 120.0}}


def test_paired_gap_is_the_mean_of_per_problem_differences():
    gap = F.paired_gap(doc(), "cold", "rl_grpo_s0", 1)
    assert gap["gap"] == pytest.approx((3 + 0 - 1 + 2) / 4 / 4)
    assert gap["lo"] <= gap["gap"] <= gap["hi"]
    back = F.paired_gap(doc(), "rl_grpo_s0", "cold", 1)
    assert back["gap"] == pytest.approx(-gap["gap"])


def test_crossover_is_the_first_k_where_the_start_leads():
    # pass@4 of cold is (1+0+1+1)/4 = 0.75, of GRPO s0 (1+0+0+1)/4 = 0.5: the start leads at 4
    # only (at k=1: 0.3125 vs 0.5; at k=2: 0.5 + 0 + 0.5 + 5/6 vs 1 + 0 + 0 + 1).
    out = F.crossover(doc(), "rl_grpo_s0")
    assert [r["k"] for r in out["rows"]] == [1, 2, 4]
    assert out["rows"][2]["gap"] == pytest.approx(-0.25)
    assert out["k_cross"] == 4
    assert F.crossover(doc(), "rl_grpo_s1")["k_cross"] is None


def test_reach_counts_gained_and_lost_problems():
    out = F.reach(doc(), "zero_s0")  # base [2,0,1,4] -> zero [3,1,0,4]
    assert out["gained"] == ["9-8-7"] and out["lost"] == ["4+4-1-1"]
    assert out["solved_before"] == out["solved_after"] == 3
    kinds = {r["kind"]: r for r in out["by_kind"] if r["problems"]}
    assert kinds["3 numbers"]["gained"] == 1 and kinds["4 numbers"]["lost"] == 1
    assert kinds["answer < 0"]["problems"] == 1  # 9-8-7 = -6


def test_reach_cells_agree_with_reach():
    cells = [c for c in F.reach_cells(doc()) if c["after"] == "zero_s0"]
    assert [c["status"] for c in cells] == [
        "solved by both", "gained by RL", "lost to RL", "solved by both"]
    assert {c["status"] for c in F.reach_cells(doc()) if c["after"] == "rl_grpo_s0"} >= {
        "solved by neither", "lost to RL"}


def test_run_tables_measure_gains_from_the_cold_start():
    rows = {r["run"]: r for r in F.spurious_table(doc())}
    assert rows["spurious_random_noclip_s0"]["gap"] == pytest.approx(0.0)
    assert rows["spurious_random_clip_s0"]["arm"] == "clip"
    assert rows["spurious_random_noclip_s0"]["arm"] == "noclip"
    few = F.few_table(doc())[0]
    assert few["share"] == pytest.approx(
        F.paired_gap(doc(), "cold", "few1_s0")["gap"]
        / F.paired_gap(doc(), "cold", "rl_grpo_s0")["gap"])


def test_answer_reads_terms_without_eval():
    assert F.answer("9-8-7") == -6 and F.answer("5-6+7-8+9") == 7
    assert F.operands("4+4-1-1") == 4


@pytest.mark.parametrize(
    ("edit", "complaint"),
    [
        (lambda d: d.pop("held_out"), "missing ['held_out']"),
        (lambda d: d["deep"].pop("cold"), "missing ['cold']"),
        (lambda d: d["deep"]["cold"]["counts"].append(1), "counts must be 4 integers"),
        (lambda d: d["deep"]["cold"]["counts"].__setitem__(0, 5), "counts must be 4 integers"),
    ],
)
def test_damaged_records_are_refused(edit, complaint):
    bad = copy.deepcopy(doc())
    edit(bad)
    with pytest.raises(ValueError, match=complaint.replace("[", r"\[").replace("]", r"\]")):
        F.check_debates(bad)


def test_a_k_beyond_the_samples_is_refused():
    with pytest.raises(ValueError, match="k must be at most"):
        F.paired_gap(doc(), "cold", "rl_grpo_s0", 8)


def test_findings_quote_the_tables():
    f = F.findings(doc())
    assert f["rl_grpo_s0_k_cross"] == 4 and f["rl_grpo_s1_k_cross"] is None
    assert f["zero_s0_gained"] == f["zero_s0_lost"] == 1
    gap = F.paired_gap(doc(), "cold", "spurious_random_clip_s0")["gap"]
    assert f["random_clip_s0"] == round(gap, 3)
    assert f["random_noclip"] == 0.0
    assert f["few1_train_first"] == round(0.2 + 0.01 * 5.5, 3)  # steps 1..10: 0.21 ... 0.30
    assert f["longer_wrong"] == f["models"] == 5 and f["minutes"] == 3.0
