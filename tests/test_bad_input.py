"""Bad input never gives a wrong answer (issue 17), one test per class of defect.

Each test is an example the issue reported: before the fix it returned a wrong number, poisoned
a later step, hung, leaked a raw numpy/torch error, ran unseeded or returned NaN/inf. Now each is
refused with a ValueError/TypeError that names the argument, or computed correctly.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time

import numpy as np
import pytest
import torch

import arithmetic_task
import dapo
import data_paths
import dr_grpo
import evaluation
import game24
import grpo
import gspo
import prm
import reasoning
import thinking
import tiny_reasoners
import tree_of_thoughts
from arithmetic_task import NUM_HELD_OUT, held_out_problems
from rl_reasoner import RLConfig, advantages_for
from tiny_gpt import TinyGPT, TinyGPTConfig, accuracy, load_checkpoint, save_checkpoint, train

NAN, INF = math.nan, math.inf
SMALL = TinyGPTConfig(n_layer=1, n_embd=16, n_head=2)


# ------------------------------------------------------------ silent wrong results


def test_accuracy_refuses_a_flat_list_of_chains():
    # Before: each character of the chain was graded as a chain, and a number came back.
    with pytest.raises(TypeError, match=r"chains\[0\] must be a sequence"):
        accuracy(["7+5-3"], ["7+5=12;12-3=9;####9"])
    assert accuracy(["7+5-3"], [["7+5=12;12-3=9;####9"]]) == 1.0


def test_advantages_for_refuses_an_unknown_objective_and_lists_the_valid_ones():
    rewards = torch.tensor([[1.0, 0.0]])
    with pytest.raises(ValueError, match=r"objective must be one of \('grpo', 'dr_grpo'"):
        advantages_for(rewards, "ppo")


@pytest.mark.parametrize(
    ("weights", "match"),
    [
        (np.array([[1.0, -1.0, 1.0]]), "weights must be finite and >= 0"),
        (np.array([[1.0, NAN, 1.0]]), "weights must be finite and >= 0"),
        (np.array([[1.0, 1.0]]), "weights must have the shape of answers"),
    ],
)
def test_plurality_is_correct_refuses_bad_weights(weights, match):
    with pytest.raises(ValueError, match=match):
        reasoning.plurality_is_correct(np.array([[0, 1, 1]]), 2, weights)


def test_plurality_is_correct_refuses_non_integer_labels():
    with pytest.raises(TypeError, match="answers must hold integer labels"):
        reasoning.plurality_is_correct(np.array([[0.0, 1.0]]), 2)


def test_apply_op_refuses_strings_instead_of_concatenating_them():
    with pytest.raises(TypeError, match="left must be an int or Fraction"):
        game24.apply_op("2", "+", "2")


@pytest.mark.parametrize("separation", [40.0, 3e3, 1e4, 1e6])
def test_best_of_n_accuracy_is_right_for_a_large_separation(separation):
    # Far apart, the verifier always prefers a right sample when there is one: 1 - (1 - p)^n.
    # Before: the fixed grid's step outgrew the peak and 0.133 came back instead of 0.94.
    assert reasoning.best_of_n_accuracy(0.5, 4, separation) == pytest.approx(1 - 0.5**4, abs=1e-9)


def test_best_of_n_accuracy_does_not_jump_where_the_grid_changes():
    below = reasoning.best_of_n_accuracy(0.3, 8, 17.9999)
    above = reasoning.best_of_n_accuracy(0.3, 8, 18.0001)
    assert below == pytest.approx(above, abs=1e-9)


# ------------------------------------------------------------ poison that surfaces later


@pytest.mark.parametrize("setting", ["grad_clip", "weight_decay", "lr", "min_lr"])
def test_train_refuses_nan_settings_before_any_step(setting):
    model = TinyGPT(SMALL, seed=0)
    before = [p.clone() for p in model.parameters()]

    def batches():
        raise AssertionError("no batch may be drawn")

    with pytest.raises(ValueError, match=setting):
        train(model, batches, steps=1, **{setting: NAN})
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("beta", NAN),
        ("format_weight", NAN),
        ("lr", INF),
        ("temperature", NAN),
        ("grad_clip", NAN),
        ("eps_high", NAN),
        ("eps_low", -3e-3),  # a negative width inverts the clip range
        ("eps_high", 1.5),
        ("eps_low", "0.2"),
        ("problem_pool", ("2+2",)),  # not a problem of the task (needs 3-5 operands)
        ("problem_pool", ("7+5-3", "seven")),
        ("objective", "ppo"),
        ("dynamic_sampling", 1),
    ],
)
def test_rl_config_is_validated_on_construction(field, value):
    with pytest.raises((ValueError, TypeError), match=field):
        RLConfig(**{field: value})


def test_rl_config_presets_still_build():
    for objective in ("grpo", "dr_grpo", "dapo", "gspo", "cispo"):
        RLConfig.preset(objective)
    RLConfig(problem_pool=("7+5-3", "2+2+2"))


# ------------------------------------------------------------ hangs and runaway memory


def test_held_out_problems_refuses_more_than_exist_and_names_the_count():
    start = time.perf_counter()
    with pytest.raises(ValueError, match=f"n must be <= {NUM_HELD_OUT}"):
        held_out_problems(NUM_HELD_OUT + 1)
    assert time.perf_counter() - start < 1.0


@pytest.mark.slow
def test_the_number_of_held_out_problems_is_right():
    count = 0
    for num in (3, 4, 5):
        for digits in itertools.product("0123456789", repeat=num):
            for ops in itertools.product("+-", repeat=num - 1):
                problem = digits[0] + "".join(o + d for o, d in zip(ops, digits[1:], strict=True))
                bucket = int(hashlib.sha256(problem.encode()).hexdigest()[:8], 16) / 16**8
                count += bucket < arithmetic_task.HELD_OUT_SHARE
    assert count == NUM_HELD_OUT


HUGE = 10**9


@pytest.mark.parametrize(
    "call",
    [
        lambda: reasoning.condorcet_majority_prob(0.6, HUGE),
        lambda: reasoning.plurality_vote_prob(0.6, HUGE, 4),
        lambda: reasoning.plurality_vote_prob(0.6, 500, 4),  # D^2 n^3 = 2e9 steps
        lambda: reasoning.best_of_n_accuracy(0.6, HUGE, 1.0),
        lambda: reasoning.NoisyReasoner("1", 0.5, HUGE, seed=0),
        lambda: reasoning.demonstrate_self_consistency(trials=HUGE, verbose=False),
        lambda: reasoning.simulate_vote_vs_verifier(0.5, 4, 1.0, ns=(HUGE,)),
        lambda: evaluation.cons_at_k_counts({"a": HUGE, "b": 3}, "a", 5),
        lambda: evaluation.cons_at_k(["a"] * 20_000, "a", 3),
        lambda: evaluation.pass_at_k(10**12, 5, 3),
        lambda: dr_grpo.demonstrate_length_bias(lengths=(HUGE,)),
        lambda: dr_grpo.per_token_push([HUGE], [1.0]),
        lambda: dapo.demonstrate_token_level(lengths=(HUGE,), verbose=False),
        lambda: gspo.demonstrate_length_variance(lengths=(HUGE,)),
        lambda: prm.generate_candidate_pool(HUGE),
    ],
)
def test_huge_sizes_are_refused_at_once(call):
    start = time.perf_counter()
    with pytest.raises(ValueError, match="must be <=|more than|at most"):
        call()
    assert time.perf_counter() - start < 1.0


def test_closed_forms_take_any_size():
    assert dapo.wasted_fraction(0.5, HUGE) == 0.0
    assert gspo.log_ratio_variances(0.04, HUGE)["seq"] == pytest.approx(0.04 / HUGE)
    assert dapo.overlong_penalty(HUGE) == -1.0


# ------------------------------------------------------------ the checkpoint loader


@pytest.fixture
def checkpoint(tmp_path):
    save_checkpoint(TinyGPT(SMALL, seed=1), tmp_path / "c.json")
    return tmp_path / "c.json", tmp_path / "c.bin", json.loads((tmp_path / "c.json").read_text())


def test_loader_refuses_deeply_nested_json(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nested too deeply"):
        load_checkpoint(path)


@pytest.mark.parametrize("shape", [[18.0, 16.0], 5, "18x16", None, [True, 16]])
def test_loader_refuses_a_shape_that_is_not_a_list_of_ints(checkpoint, shape):
    path, _, meta = checkpoint
    meta["tensors"][0]["shape"] = shape
    path.write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="bad shape|has shape"):
        load_checkpoint(path)


def test_loader_refuses_a_truncated_bin_whose_size_and_hash_were_updated(checkpoint):
    path, bin_path, meta = checkpoint
    blob = bin_path.read_bytes()[:-64]
    bin_path.write_bytes(blob)
    meta["bytes"], meta["sha256"] = len(blob), hashlib.sha256(blob).hexdigest()
    path.write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="truncated"):
        load_checkpoint(path)


# ------------------------------------------------------------ every draw is seeded


@pytest.mark.parametrize(
    "call",
    [
        lambda: reasoning.NoisyReasoner("1", 0.5, 3, seed=None),
        lambda: reasoning.SlipChainReasoner("7+5-3", 0.1, seed=None),
        lambda: reasoning.demonstrate_self_consistency(seed=None, verbose=False),
        lambda: reasoning.simulate_vote_vs_verifier(0.5, 4, 1.0, seed=None),
        lambda: evaluation.make_toy_benchmark(seed=None),
        lambda: held_out_problems(5, seed=None),
        lambda: TinyGPT(SMALL, seed=None),
        lambda: grpo.ToyReasoningPolicy(4, seed=None),
        lambda: gspo.ToySequencePolicy(4, 5, seed=None),
        lambda: gspo.demonstrate_length_variance(seed=None),
        lambda: dr_grpo.length_drift_simulation(seed=None),
        lambda: prm.generate_candidate_pool(5, seed=None),
        lambda: game24.demo_puzzles(5, seed=None),
    ],
)
def test_seed_none_is_refused(call):
    with pytest.raises(TypeError, match="seed must be an int seed"):
        call()


# ------------------------------------------------------------ NaN and inf do not leak


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: evaluation.temperature_probs(np.zeros(3), NAN), "temperature"),
        (lambda: evaluation.derail_probability(NAN), "temperature"),
        (lambda: evaluation.derail_probability(1.0, chain_tokens=-1), "chain_tokens"),
        (lambda: thinking.token_ledger("x", price_per_million=NAN), "price_per_million"),
        (lambda: thinking.token_ledger("x", price_per_million=INF), "price_per_million"),
        (lambda: thinking.TokenLedger(1, 1, NAN), "price_per_million"),
        (lambda: thinking.training_flops(INF, 1.0), "params"),
        (lambda: reasoning.best_of_n_accuracy(0.5, 4, NAN), "separation"),
        (lambda: reasoning.simulate_vote_vs_verifier(0.5, 4, NAN), "separation"),
        (lambda: reasoning.simulate_vote_vs_verifier(0.5, 4, 1e3), "separation"),
        (
            lambda: grpo.grpo_surrogate(
                torch.tensor([-INF, -1.0]), torch.zeros(2), torch.tensor([1.0, -1.0])
            ),
            "logp_new",
        ),
        (lambda: grpo.token_ratios(torch.zeros(2), torch.tensor([0.0, INF])), "logp_old"),
        (
            lambda: dapo.clipped_objective_terms(torch.tensor([-INF]), torch.zeros(1), 1.0),
            "logp_new",
        ),
        (
            lambda: gspo.sequence_importance_ratio(torch.tensor([[-INF, 0.0]]), torch.zeros(1, 2)),
            "logp_new",
        ),
    ],
)
def test_nan_and_inf_are_refused_not_returned(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


def test_padding_may_still_hold_anything():
    # The losses zero the padding before any arithmetic, so a -inf there is not an error.
    new = torch.tensor([[-0.5, -INF], [-0.2, -0.3]])
    mask = torch.tensor([[True, False], [True, True]])
    loss = grpo.grpo_surrogate(new, new.detach(), torch.tensor([1.0, -1.0]), mask=mask)
    assert torch.isfinite(loss)


# ------------------------------------------------------------ errors name the argument


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: reasoning.vote_distribution(5), "answers"),
        (lambda: dapo.group_is_effective(5), "rewards"),
        (lambda: dapo.dapo_surrogate(5, [], torch.zeros(1)), "logp_new"),
        (lambda: gspo.per_token_vs_sequence_weights(spikes=5), "spikes"),
        (lambda: tree_of_thoughts.solve_rate_sweep(None), "puzzles"),
        (
            lambda: tree_of_thoughts.solve_rate_sweep([[4, 9, 10, 13]], error_rates=[2.0]),
            "error_rates",
        ),
        (lambda: tree_of_thoughts.bfs_search([4, 9, 10, 13], 2, len, batch=-1), "batch"),
        (lambda: prm.math_shepherd_labels([], [4, 9, 10, 13]), "steps"),
        (lambda: prm.is_fully_valid({}), "candidate"),
        (lambda: evaluation.mean_pass_at_k([(1, 2)], 1), "results"),
        (
            lambda: evaluation.bootstrap_interval(np.array([NAN]), np.random.default_rng(0), 5),
            "per_problem",
        ),
        (lambda: accuracy(["7+5-3", "x"], [["a"], ["b"]]), "problems"),
        (
            lambda: grpo.clipped_surrogate_terms(torch.ones(2), torch.ones(3), 0.2, 0.2),
            "advantages",
        ),
    ],
)
def test_errors_name_the_argument(call, name):
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
        call()


# ------------------------------------------------------------ the multi-path reasoner (issue 13)


@pytest.fixture(scope="module")
def multipath_record():
    return json.loads(data_paths.MULTIPATH_EVAL_PATH.read_text())


def _routed(problem, n):
    return [arithmetic_task.write_route_chain(problem, "left")] * n


@pytest.mark.parametrize(
    ("call", "name"),
    [
        # Before: a count given as text or as a bool was read as a number, an infinite n gave NaN.
        (lambda: tiny_reasoners.error_correlation(["3"], 4), "wrong"),
        (lambda: tiny_reasoners.error_correlation([True, False], 4), "wrong"),
        (lambda: tiny_reasoners.error_correlation([2], INF), "n"),
        # Before: wrong chains on a route with no chains gave a "correlation" of -1.5.
        (
            lambda: tiny_reasoners.route_error_correlation([{"left": 3}], [{"signs": 5}]),
            "wrong",
        ),
        # Before: ZeroDivisionError.
        (lambda: tiny_reasoners.route_error_correlation([{}], [{}]), "count"),
        # Before: a negative count gave a chance of 16.0; an int answer counted the right one
        # among the wrong ones (0.67 instead of None).
        (lambda: tiny_reasoners.wrong_agreement({"9": -3, "8": 5}, "10"), "counts"),
        (lambda: tiny_reasoners.wrong_agreement({"10": 5, "9": 1}, 10), "correct"),
        # Before: uneven chain counts (per-sample accuracy above 1) or one chain per problem
        # failed deep inside with a message about "wrong"; a k above n or a chain that is not
        # text failed in pass_at_k / extract_answer, naming their arguments.
        (
            lambda: tiny_reasoners.summarize_chains(
                ["7+5-3", "2+2+2"],
                [_routed("7+5-3", 2), _routed("2+2+2", 4)],
                [1],
                np.random.default_rng(0),
                5,
            ),
            "chains",
        ),
        (
            lambda: tiny_reasoners.summarize_chains(
                ["7+5-3"], [_routed("7+5-3", 1)], [1], np.random.default_rng(0), 5
            ),
            "chains",
        ),
        (
            lambda: tiny_reasoners.summarize_chains(
                ["7+5-3"], [_routed("7+5-3", 2)], [4], np.random.default_rng(0), 5
            ),
            "ks",
        ),
        (
            lambda: tiny_reasoners.summarize_chains(
                ["7+5-3"], [[1, 2]], [1], np.random.default_rng(0), 5
            ),
            "chains",
        ),
        # Before: an empty mapping of models gave an empty record; a model that is not one
        # failed in sample_chains as "model"; a size past the caps failed after the greedy pass
        # as "n"; a progress that cannot be called failed after all the sampling.
        (lambda: tiny_reasoners.evaluate({}, ["7+5-3"]), "models"),
        (lambda: tiny_reasoners.evaluate({"m": "gpt"}, ["7+5-3"]), "models"),
        (
            lambda: tiny_reasoners.evaluate(
                {"m": TinyGPT(SMALL, seed=0)}, ["7+5-3"], samples=HUGE
            ),
            "samples",
        ),
        (
            lambda: tiny_reasoners.evaluate(
                {"m": TinyGPT(SMALL, seed=0)},
                ["7+5-3"],
                samples=2,
                temperatures=(1.0,),
                num_bootstrap=5,
                progress="print",
            ),
            "progress",
        ),
        # Before: the second T = 1.0 overwrote the first in the record, silently.
        (
            lambda: tiny_reasoners.evaluate(
                {"m": TinyGPT(SMALL, seed=0)},
                ["7+5-3"],
                samples=2,
                temperatures=(1.0, 1.0),
                num_bootstrap=5,
            ),
            "temperatures",
        ),
        # Before: range() refused a step of 0, naming nothing.
        (
            lambda: tiny_reasoners.greedy_by_route(
                TinyGPT(SMALL, seed=0), ["7+5-3"], batch_size=0
            ),
            "batch_size",
        ),
        # Before: config=0 trained the default (full-size) model; a warm-up given as text
        # failed in min(); a route given as a string was read one letter at a time.
        (
            lambda: tiny_reasoners.train_reasoner(0, steps=2, batch_size=4, config=0),
            "config",
        ),
        (
            lambda: tiny_reasoners.train_reasoner(
                0, steps=2, batch_size=4, warmup="10", config=SMALL
            ),
            "warmup",
        ),
        # Before: KeyError.
        (lambda: tiny_reasoners.vote_curve_rows({}), "record"),
        (
            lambda: tiny_reasoners.comparison_rows(
                {"ks": [4], "models": {"m": {"greedy": {"value": 0.5}}}}
            ),
            "record",
        ),
    ],
)
def test_multipath_reasoner_refuses_bad_input(call, name):
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
        call()


def test_train_reasoner_refuses_a_string_of_routes():
    # Before: ValueError for "l", the string's first letter, instead of a TypeError.
    with pytest.raises(TypeError, match="routes must be a sequence"):
        tiny_reasoners.train_reasoner(0, "left", steps=2, batch_size=4, config=SMALL)


def test_comparison_rows_refuses_a_bare_temperature(multipath_record):
    # Before: TypeError "argument of type 'float' is not iterable", naming nothing.
    with pytest.raises(TypeError, match="temperatures must be a sequence"):
        tiny_reasoners.comparison_rows(multipath_record, temperatures=0.7)
    assert tiny_reasoners.comparison_rows(multipath_record, temperatures=[0.7])


# ------------------------------------------------------------ loaders that check only the outline
# Issue 29: each loader of data/ checks what it returns, and names the file and the field.


def _hollowed(change):
    """data/r1_runs.json with one change made by ``change(doc)``."""
    import copy

    doc = copy.deepcopy(_R1_DOC())
    change(doc)
    return doc


def _R1_DOC():
    import r1_records

    if not hasattr(_R1_DOC, "doc"):
        _R1_DOC.doc = r1_records.load_records()
    return _R1_DOC.doc


def _set(path, value):
    def change(doc):
        *parents, last = path
        target = doc
        for key in parents:
            target = target[key]
        target[last] = value

    return change


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (_set(("runs", "rl_grpo_s0"), {}), "runs.rl_grpo_s0 has no 'kind'"),
        (_set(("runs", "rl_grpo_s0", "history"), []), "runs.rl_grpo_s0.history"),
        (_set(("runs", "rl_dapo_s1", "curve"), []), "runs.rl_dapo_s1.curve"),
        (_set(("runs", "cold", "final", "counts"), [3]), "runs.cold.final.counts"),
        (_set(("runs", "cold", "final", "counts", 7), 999), r"runs.cold.final.counts\[7\]"),
        (_set(("runs", "base4", "final", "pass_at_k"), {}), "runs.base4.final.pass_at_k"),
        (_set(("runs", "cold", "losses"), []), "runs.cold.losses"),
        (_set(("runs", "rs", "pairs"), []), "runs.rs.pairs"),
        (_set(("runs", "rs", "stats", "kept"), 0.0), "runs.rs.stats.kept"),
        (_set(("runs", "budget", "rows"), []), "runs.budget.rows"),
        (_set(("runs", "budget", "rows", 0, "accuracy"), None), r"runs.budget.rows\[0\].accuracy"),
        (_set(("runs", "stage4_s0", "history", 3, "reward"), "x"), r"history\[3\].reward"),
        (_set(("settings", "budgets"), []), "settings.budgets"),
        (_set(("settings", "eval_problems"), 0), "settings.eval_problems"),
    ],
)
def test_r1_records_with_hollow_runs_are_refused_at_load_naming_the_field(
    change, field, tmp_path
):
    import r1_records

    path = tmp_path / "r1_runs.json"
    path.write_text(json.dumps(_hollowed(change)))
    with pytest.raises(ValueError, match=field) as err:
        r1_records.load_records(path)
    assert str(path) in str(err.value)


def test_r1_records_truncated_name_the_file(tmp_path):
    import r1_records

    path = tmp_path / "r1_runs.json"
    path.write_text(json.dumps(_R1_DOC())[:5000])
    with pytest.raises(ValueError, match=str(path)):
        r1_records.load_records(path)


def _write_json(tmp_path, doc, name="data.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("puzzles", "field"),
    [
        ([], "puzzles is empty"),
        ([{"numbers": [1, 2, 3]}], r"puzzles\[0\] must have exactly the keys"),
        ([{"numbers": [1, 2, 3], "solvable": False, "solution": None}], r"puzzles\[0\]\.numbers"),
        ([{"numbers": [1, 2, 3, 99], "solvable": False, "solution": None}], "numbers"),
        ([{"numbers": [4, 6, 1, 1], "solvable": 1, "solution": None}], "solvable"),
        ([{"numbers": [4, 6, 1, 1], "solvable": True, "solution": None}], "solution"),
    ],
)
def test_load_puzzles_validates_every_puzzle_and_names_the_file(puzzles, field, tmp_path):
    path = _write_json(tmp_path, {"puzzles": puzzles})
    with pytest.raises(ValueError, match=field) as err:
        game24.load_puzzles(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(puzzles=[]), "puzzles must be a list of count"),
        (lambda d: d.update(summary=d["summary"][:3]), "summary must hold one row"),
        (lambda d: d["summary"][2].update(solve_rate=2.0), r"summary\[2\]\.solve_rate"),
        (lambda d: d["puzzles"][5].update(solved=[[1]]), r"puzzles\[5\]\.solved"),
        (lambda d: d.update(beam_widths=[]), "beam_widths"),
        (lambda d: d.pop("salt"), "lacks"),
    ],
)
def test_load_beam_sweep_validates_the_grid_and_names_the_file(change, field, tmp_path):
    doc = json.loads(data_paths.BEAM_SWEEP_PATH.read_text())
    change(doc)
    path = _write_json(tmp_path, doc)
    with pytest.raises(ValueError, match=field) as err:
        tree_of_thoughts.load_beam_sweep(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("loader", "default", "change", "field"),
    [
        ("load_exercise3", "R1_EXERCISE3_PATH", lambda d: d.update(pass_at_1_after=None),
         "pass_at_1_after"),
        ("other_machine", "R1_OTHER_MACHINE_PATH", lambda d: d.update(agreement={}),
         "agreement has no 'grpo'"),
        ("other_machine", "R1_OTHER_MACHINE_PATH",
         lambda d: d["agreement"]["gspo"].update(same_steps=99), "agreement.gspo.same_steps"),
    ],
)
def test_the_small_r1_loaders_validate_their_fields(loader, default, change, field, tmp_path):
    import r1_records

    doc = json.loads(getattr(data_paths, default).read_text())
    change(doc)
    path = _write_json(tmp_path, doc)
    with pytest.raises(ValueError, match=field) as err:
        getattr(r1_records, loader)(path)
    assert str(path) in str(err.value)


# ------------------------------------------------------------ issue 29: the open classes


@pytest.mark.parametrize(
    "call",
    [
        lambda: reasoning.majority_vote(itertools.repeat("7")),
        lambda: reasoning.vote_distribution(itertools.count()),
        lambda: evaluation.cons_at_k(itertools.repeat("7"), "7", 3),
    ],
)
def test_an_endless_iterator_is_refused_not_read_forever(call):
    start = time.perf_counter()
    with pytest.raises((ValueError, TypeError), match="at most|must"):
        call()
    assert time.perf_counter() - start < 30


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: reasoning.condorcet_majority_prob(10**400, 3), "p"),
        (lambda: reasoning.condorcet_majority_prob(0.6, 10**5000), "n"),
        (lambda: reasoning.best_of_n_accuracy(0.5, 3, 10**400), "separation"),
        (lambda: grpo.group_relative_advantages(torch.tensor([1.0, 0.0]), eps=10**400), "eps"),
    ],
)
def test_a_huge_int_is_refused_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name} ") as err:
        call()
    assert "digits" in str(err.value)  # its size, not CPython's 4,300-digit error or a float's


def test_standardising_huge_rewards_keeps_their_signs():
    # Before: (1e20)**2 overflowed float32, the std became inf and the advantages [0, -0].
    adv = grpo.group_relative_advantages(torch.tensor([[1e20, -1e20], [3.0, 1.0]]))
    assert torch.allclose(adv, torch.tensor([[1.0, -1.0], [1.0, -1.0]]), atol=1e-5)


def test_sft_refuses_a_bad_later_pair_before_training():
    from r1_pipeline import cold_start_set, sft

    model = TinyGPT(SMALL, seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    pairs = [*cold_start_set(4, seed=0), ("7+5", 12)]  # the fifth completion is not a str
    with pytest.raises(TypeError, match=r"pairs\[4\]"):
        sft(model, pairs, steps=2, batch_size=2)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters(), strict=True))


def test_an_out_of_vocabulary_token_id_is_refused_by_the_model():
    model = TinyGPT(SMALL, seed=0)
    for bad in (SMALL.vocab_size, -1):
        with pytest.raises(ValueError, match=r"^idx .*token ids in \[0, "):
            model(torch.tensor([[1, bad]]))


# Hooks (callbacks the caller passes in) whose answer was read unchecked: junk came back as an
# AttributeError from deep inside, a message naming another function's argument, an endless
# read, or (a narrower logits tensor) a silently wrong draw. Each is checked where it returns.
class _Junk:
    pass


def _endless():
    """Scores without end, as far as a reader of a level can tell (the old list() read them all:
    stopped here at 10**5 with an error the test does not expect, not by the machine's memory)."""
    for i in itertools.count():
        if i > 10**5:
            raise RuntimeError("read 10**5 scores for a level of a few dozen states")
        yield 0.5


def _sampler(out):
    return lambda: out


HOOK_CASES = [
    # tree_of_thoughts: the evaluator, one state at a time and batch=True
    (lambda: tree_of_thoughts.bfs_search([4, 9, 10, 13], 2, lambda s: 10**400), ValueError,
     "evaluator's score"),
    (lambda: tree_of_thoughts.dfs_search([4, 9, 10, 13], lambda s: 10**400), ValueError,
     "evaluator's score"),
    (lambda: tree_of_thoughts.bfs_search([4, 9, 10, 13], 2, lambda s: _Junk(), batch=True),
     TypeError, r"evaluator's scores \(batch=True\) must be a sequence"),
    (lambda: tree_of_thoughts.bfs_search([4, 9, 10, 13], 2, lambda s: None, batch=True),
     TypeError, r"evaluator's scores \(batch=True\)"),
    (lambda: tree_of_thoughts.bfs_search([4, 9, 10, 13], 2, lambda s: _endless(), batch=True),
     ValueError, r"evaluator's scores \(batch=True\) must hold at most"),
    # reasoning: the sampler and the verifier
    (lambda: reasoning.self_consistency(_sampler(_Junk()), 3), TypeError,
     "sample_fn must return a str"),
    (lambda: reasoning.self_consistency(_sampler(None), 3), TypeError,
     "sample_fn must return a str"),
    (lambda: reasoning.best_of_n(_sampler("#### 3"), lambda s: 10**400, 3), ValueError,
     "score_fn's score"),
    # budget forcing: the logits hook tiny_gpt.sample calls, and what it returns
    (lambda: _budget_hook()(1, [0.1], [1]), TypeError, "logp must be a torch.Tensor"),
    (lambda: _budget_hook()(1, torch.zeros(2, 5), None), TypeError, "tokens must be a torch"),
    (lambda: _budget_hook()("1", torch.zeros(2, 5), torch.zeros(2, 1, dtype=torch.long)),
     TypeError, "t must be an int"),
    (lambda: _sample_with_hook(lambda t, logp, tokens: None), TypeError, "logits_hook must return"),
    (lambda: _sample_with_hook(lambda t, logp, tokens: logp[:, :3]), TypeError,
     "logits_hook must return"),  # was silent: the draw ran over the first three tokens only
    (lambda: _sample_with_hook(lambda t, logp, tokens: logp.long()), TypeError,
     "logits_hook must return"),
]


def _budget_hook():
    import budget

    return budget.budget_hook(3)


def _sample_with_hook(hook):
    from tiny_gpt import sample

    model = TinyGPT(SMALL, seed=0)
    return sample(model, ["7+5="], 0.0, logits_hook=hook)


@pytest.mark.parametrize(("call", "error", "message"), HOOK_CASES,
                         ids=[f"hook{i}" for i in range(len(HOOK_CASES))])
def test_a_hook_returning_the_wrong_thing_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_hooks_still_run_when_they_answer_right():
    assert tree_of_thoughts.bfs_search(
        [4, 9, 10, 13], 5, lambda states: [tree_of_thoughts.oracle_evaluator(s) for s in states],
        batch=True) is not None  # fmt: skip
    assert reasoning.best_of_n(_sampler("#### 3"), lambda s: -math.inf, 2) == "#### 3"
    out = _sample_with_hook(_budget_hook())
    assert len(out.completions) == 1
