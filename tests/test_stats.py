"""The SPRT: its maths against values worked out independently here, then ``arena sprt``.

Independent checks of the constrained maximum-likelihood step:
- two support points: the mean alone fixes the distribution;
- three: a golden-section search over the one free probability;
- any: the Karush-Kuhn-Tucker conditions (sufficient, the problem being concave);
- the LLR through the dual problem: the profile log-likelihood at mean ``s`` is
  ``sum p log p - max_x sum p log(1 + x (a - s))``, maximized here by a golden-section
  search instead of the module's bisection on the derivative.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.cli.sprt import pair_seed
from arena.replays.files import read_replay
from arena.stats import (
    GAME_SCORES,
    REGULARIZATION,
    SequentialTest,
    SprtError,
    Verdict,
    bounds,
    constrained_mle,
    elo_estimate,
    elo_from_score,
    expected_score,
    llr,
    pentanomial,
    score_interval,
)

GOLDEN = (math.sqrt(5) - 1) / 2


def golden_max(f: Callable[[float], float], low: float, high: float) -> float:
    """The argmax of a concave ``f`` on (low, high), by golden-section search."""
    a, b = low, high
    c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(200):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - GOLDEN * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + GOLDEN * (b - a)
            fd = f(d)
    return (a + b) / 2


def profile_log_likelihood(p: list[float], s: float) -> float:
    """``max sum p log q`` over distributions q on GAME_SCORES with mean s, via the dual."""
    shifts = [a - s for a in GAME_SCORES]
    low, high = -1 / max(shifts), -1 / min(shifts)
    margin = 1e-12 * (high - low)

    def dual(x: float) -> float:
        return sum(pi * math.log(1 + x * d) for pi, d in zip(p, shifts, strict=True))

    x = golden_max(dual, low + margin, high - margin)
    return sum(pi * math.log(pi) for pi in p) - dual(x)


def reference_llr(counts: list[int], elo0: float, elo1: float) -> float:
    regular = [c if c else REGULARIZATION for c in counts]
    n = sum(regular)
    p = [c / n for c in regular]
    return n * (
        profile_log_likelihood(p, expected_score(elo1))
        - profile_log_likelihood(p, expected_score(elo0))
    )


# -- parameters and the Elo scale ------------------------------------------------------


def test_bounds_for_five_percent_errors_are_plus_minus_2_944() -> None:
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944, abs=5e-4)
    assert upper == pytest.approx(2.944, abs=5e-4)
    assert upper == pytest.approx(math.log(19))  # (1 - 0.05) / 0.05


def test_bounds_are_wald_s_for_unequal_errors() -> None:
    assert bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


@pytest.mark.parametrize(("alpha", "beta"), [(0, 0.05), (0.05, 1), (0.6, 0.5), (-0.1, 0.05)])
def test_bounds_refuse_error_rates_outside_0_1(alpha: float, beta: float) -> None:
    with pytest.raises(SprtError, match="alpha"):
        bounds(alpha, beta)


def test_logistic_elo_scale() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)  # 400 Elo: odds of 10 to 1
    assert expected_score(-400) == pytest.approx(1 / 11)
    for elo in (-700.0, -35.5, 0.0, 12.0, 250.0):
        assert elo_from_score(expected_score(elo)) == pytest.approx(elo, abs=1e-9)
    assert elo_from_score(0.0) == -math.inf
    assert elo_from_score(1.0) == math.inf


def test_pentanomial_counts_pair_scores() -> None:
    assert pentanomial([0, 2, 1.5, 2, 0.5, 1, 1]) == [1, 1, 2, 1, 2]
    with pytest.raises(SprtError, match=r"0\.7"):
        pentanomial([0.7])
    with pytest.raises(SprtError):
        pentanomial([2.5])


# -- the constrained maximum-likelihood distribution -----------------------------------


def test_two_points_the_mean_fixes_the_distribution() -> None:
    assert constrained_mle([0.0, 1.0], [0.3, 0.7], 0.6) == pytest.approx([0.4, 0.6])


@pytest.mark.parametrize(
    ("p", "s"), [([0.2, 0.5, 0.3], 0.4), ([0.6, 0.1, 0.3], 0.7), ([0.05, 0.9, 0.05], 0.52)]
)
def test_three_points_match_a_golden_section_search(p: list[float], s: float) -> None:
    # q = (1 - s - m/2, m, s - m/2) has mean s for any middle mass m: search m.
    def log_likelihood(m: float) -> float:
        q = (1 - s - m / 2, m, s - m / 2)
        return sum(pi * math.log(qi) for pi, qi in zip(p, q, strict=True))

    top = min(2 * s, 2 * (1 - s))
    m = golden_max(log_likelihood, 1e-12, top - 1e-12)
    expected = [1 - s - m / 2, m, s - m / 2]
    assert constrained_mle([0.0, 0.5, 1.0], p, s) == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize(
    ("counts", "s"),
    [
        ([3, 10, 25, 12, 5], 0.55),
        ([1, 1, 1, 1, 40], 0.5),
        ([20, 1, 0.001, 2, 0.5], 0.9),
        ([5, 5, 5, 5, 5], 0.01),
    ],
)
def test_the_distribution_meets_the_optimality_conditions(counts: list[float], s: float) -> None:
    total = sum(counts)
    p = [c / total for c in counts]
    q = constrained_mle(GAME_SCORES, p, s)
    assert sum(q) == pytest.approx(1.0)
    assert sum(qi * a for qi, a in zip(q, GAME_SCORES, strict=True)) == pytest.approx(s)
    assert all(qi > 0 for qi in q)
    # Stationarity: p_i / q_i = lam + mu a_i for one lam, mu; and then lam + mu s = 1.
    ratios = [pi / qi for pi, qi in zip(p, q, strict=True)]
    mu = (ratios[-1] - ratios[0]) / (GAME_SCORES[-1] - GAME_SCORES[0])
    lam = ratios[0] - mu * GAME_SCORES[0]
    for ratio, a in zip(ratios, GAME_SCORES, strict=True):
        assert ratio == pytest.approx(lam + mu * a, rel=1e-6)
    assert lam + mu * s == pytest.approx(1.0, rel=1e-6)


def test_the_distribution_agrees_with_scipy() -> None:
    optimize = pytest.importorskip("scipy.optimize")
    p = [0.1, 0.2, 0.3, 0.25, 0.15]
    s = 0.62
    found = optimize.minimize(
        lambda q: -sum(pi * math.log(max(qi, 1e-300)) for pi, qi in zip(p, q, strict=True)),
        p,
        method="SLSQP",
        bounds=[(1e-9, 1)] * 5,
        constraints=[
            {"type": "eq", "fun": lambda q: sum(q) - 1},
            {
                "type": "eq",
                "fun": lambda q: sum(qi * a for qi, a in zip(q, GAME_SCORES, strict=True)) - s,
            },
        ],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    assert constrained_mle(GAME_SCORES, p, s) == pytest.approx(list(found.x), abs=1e-5)


def test_a_mean_outside_the_observed_scores_has_no_distribution() -> None:
    with pytest.raises(SprtError, match="mean"):
        constrained_mle(GAME_SCORES, [0, 0, 0, 0, 1], 0.5)


# -- the log-likelihood ratio -----------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [
        ([3, 10, 25, 12, 5], 0, 10),
        ([3, 10, 25, 12, 5], -20, 40),
        ([0, 0, 0, 0, 7], 0, 50),
        ([9, 1, 0, 0, 0], 0, 50),
        ([40, 180, 400, 210, 55], 0, 5),
        ([1, 0, 0, 0, 0], -10, 10),
    ],
)
def test_llr_matches_the_dual_problem(counts: list[int], elo0: float, elo1: float) -> None:
    assert llr(counts, elo0, elo1) == pytest.approx(reference_llr(counts, elo0, elo1), abs=1e-6)


def test_llr_of_a_big_sample_is_near_the_normal_approximation() -> None:
    # For s0, s1 close to the mean m: LLR ~ N (s1 - s0) (2 m - s0 - s1) / (2 var)
    # (Fishtest's LLR_alt2), var the per-game variance of pair scores.
    counts = [40, 180, 400, 220, 55]
    n = sum(counts)
    m = sum(c * a for c, a in zip(counts, GAME_SCORES, strict=True)) / n
    var = sum(c * (a - m) ** 2 for c, a in zip(counts, GAME_SCORES, strict=True)) / n
    s0, s1 = expected_score(0), expected_score(10)
    approximation = n * (s1 - s0) * (2 * m - s0 - s1) / (2 * var)
    assert approximation > 1  # the sample's Elo (+13.6) lies above elo1: H1 is favoured
    assert llr(counts, 0, 10) == pytest.approx(approximation, rel=0.01)


def test_no_pairs_no_evidence() -> None:
    assert llr([0, 0, 0, 0, 0], 0, 10) == 0.0


def test_symmetric_counts_give_a_zero_llr_for_a_symmetric_test() -> None:
    for counts in ([1, 2, 3, 2, 1], [5, 0, 11, 0, 5], [2, 7, 30, 7, 2]):
        assert llr(counts, -15, 15) == pytest.approx(0.0, abs=1e-9)
        assert llr(counts, 0, 20) < 0  # the sample says 0 Elo: H0 is favoured


def test_swapping_the_hypotheses_negates_the_llr() -> None:
    counts = [3, 10, 25, 12, 5]
    assert llr(counts, 10, 0) == pytest.approx(-llr(counts, 0, 10))


def test_mirrored_counts_mirror_the_elo() -> None:
    counts = [3, 10, 25, 12, 5]
    assert llr(counts[::-1], 0, -10) == pytest.approx(llr(counts, 0, 10))


def test_more_wins_give_a_higher_llr() -> None:
    rng = random.Random(7)
    for _ in range(50):
        counts = [rng.randrange(0, 12) for _ in range(5)]
        lower = rng.randrange(0, 4)
        if counts[lower] == 0:
            continue
        better = list(counts)
        better[lower] -= 1
        better[lower + 1] += 1  # one pair scores half a game more
        assert llr(better, 0, 20) > llr(counts, 0, 20)
    assert llr([0, 0, 0, 0, 6], 0, 20) > llr([0, 0, 0, 0, 5], 0, 20) > 0


# -- the Elo estimate ---------------------------------------------------------------------


def expand(counts: list[int]) -> list[float]:
    """Per-game scores of each pair (pair score / 2), one entry per pair."""
    return [a for count, a in zip(counts, GAME_SCORES, strict=True) for _ in range(count)]


def test_elo_estimate_by_hand() -> None:
    # Two pairs scoring 1 and 2 games: m = 3/4, var = 1/16, se = sqrt(1/32).
    estimate = elo_estimate([0, 0, 1, 0, 1])
    assert estimate.elo == pytest.approx(400 * math.log10(3))  # 190.85
    low = 0.75 - 1.959964 * math.sqrt(1 / 32)
    assert estimate.low == pytest.approx(-400 * math.log10(1 / low - 1), abs=1e-3)
    assert estimate.high == math.inf  # m + 1.96 se is above 1


def test_elo_estimate_matches_the_pair_statistics() -> None:
    counts = [2, 3, 10, 6, 4]
    scores = expand(counts)
    m = statistics.fmean(scores)
    se = math.sqrt(statistics.pvariance(scores) / len(scores))
    estimate = elo_estimate(counts)
    assert estimate.elo == pytest.approx(-400 * math.log10(1 / m - 1))
    assert estimate.low == pytest.approx(-400 * math.log10(1 / (m - 1.959964 * se) - 1), abs=1e-3)
    assert estimate.high == pytest.approx(-400 * math.log10(1 / (m + 1.959964 * se) - 1), abs=1e-3)


def test_score_interval_comes_from_the_spread_of_pair_scores() -> None:
    # Five pairs won 2-0 and five lost 0-2: each pair's two games agree, so there
    # are ten independent draws, not twenty.  Pair scores (halved) are 0 or 1:
    # var 1/4, se = sqrt(1/4 / 10) = 0.158, wider than twenty independent games'
    # sqrt(1/4 / 20) = 0.112.
    interval = score_interval([5, 0, 0, 0, 5])
    assert interval.score == 0.5
    assert interval.high - 0.5 == pytest.approx(1.959964 * math.sqrt(0.25 / 10), abs=1e-6)
    assert interval.low == pytest.approx(1 - interval.high)
    # Ten pairs split 1-1: the deal decided every game, no spread to size an interval.
    split = score_interval([0, 0, 10, 0, 0])
    assert split.score == 0.5 and math.isnan(split.low) and math.isnan(split.high)
    with pytest.raises(SprtError, match="no pairs"):
        score_interval([0, 0, 0, 0, 0])


def test_symmetric_counts_estimate_zero_elo_with_a_symmetric_interval() -> None:
    estimate = elo_estimate([2, 7, 30, 7, 2])
    assert estimate.elo == 0.0
    assert estimate.low == pytest.approx(-estimate.high)
    assert estimate.low < 0 < estimate.high


def test_all_wins_estimate_infinity_without_an_interval() -> None:
    estimate = elo_estimate([0, 0, 0, 0, 5])
    assert estimate.elo == math.inf
    assert math.isnan(estimate.low) and math.isnan(estimate.high)
    with pytest.raises(SprtError, match="no pairs"):
        elo_estimate([0, 0, 0, 0, 0])


# -- the sequential test --------------------------------------------------------------------


def simulated_pairs(true_elo: float, seed: int, draw: float = 0.1) -> Iterator[float]:
    """Pair scores of two independent games at ``true_elo`` (a draw with chance ``draw``)."""
    rng = random.Random(seed)
    win = expected_score(true_elo) - draw / 2
    while True:
        total = 0.0
        for _ in range(2):
            u = rng.random()
            total += 1.0 if u < win else 0.5 if u < win + draw else 0.0
        yield total


def run(test: SequentialTest, pairs: Iterator[float], limit: int = 5000) -> Verdict:
    for score in pairs:
        if test.add(score) is not Verdict.CONTINUE or test.pairs >= limit:
            break
    return test.verdict


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_clearly_better_bot_is_accepted(seed: int) -> None:
    test = SequentialTest(0, 30)
    assert run(test, simulated_pairs(120, seed)) is Verdict.H1
    assert test.llr >= test.upper
    assert test.estimate().elo > 30


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_clearly_worse_bot_is_rejected(seed: int) -> None:
    test = SequentialTest(0, 30)
    assert run(test, simulated_pairs(-90, seed)) is Verdict.H0
    assert test.llr <= test.lower
    assert test.estimate().elo < 0


@pytest.mark.slow
def test_wrong_decisions_stay_near_alpha_and_beta() -> None:
    # At the H0 Elo H1 should be accepted in about alpha = 5% of the tests, and at the
    # H1 Elo H0 in about beta = 5%: 2 in 40 each.  (Seeded: 2 and 1 here.)
    false_h1 = sum(
        run(SequentialTest(0, 60), simulated_pairs(0, 1000 + seed)) is Verdict.H1
        for seed in range(40)
    )
    false_h0 = sum(
        run(SequentialTest(0, 60), simulated_pairs(60, 2000 + seed)) is Verdict.H0
        for seed in range(40)
    )
    assert false_h1 <= 5 and false_h0 <= 5


def test_the_test_checks_its_parameters_and_its_end() -> None:
    with pytest.raises(SprtError, match="below"):
        SequentialTest(10, 10)
    with pytest.raises(SprtError, match="alpha"):
        SequentialTest(0, 10, alpha=0)
    test = SequentialTest(0, 200)
    with pytest.raises(SprtError, match="pair score"):
        test.add(3)
    while test.add(2.0) is Verdict.CONTINUE:
        pass
    assert test.verdict is Verdict.H1
    assert test.score == 2 * test.pairs
    with pytest.raises(SprtError, match="over"):
        test.add(2.0)


# -- arena sprt ---------------------------------------------------------------------------------


def sprt(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["sprt", *args, "--in-process", "--no-plugin-autoload"])
    out, err = capsys.readouterr()
    return status, out, err


def test_greedy_against_random_accepts_h1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = sprt(
        capsys, "greedy", "random", "--elo0", "0", "--elo1", "50", "--max-pairs", "200"
    )
    assert status == 0
    lines = out.splitlines()
    assert any(line.startswith("H1 accepted: greedy is better than random") for line in lines)
    elo = next(line for line in lines if line.startswith("Elo greedy - random: "))
    assert "+" in elo.split(":")[1]
    progress = [line for line in lines if line.startswith("pairs ")]
    assert progress and "LLR +" in progress[-1] and "bounds [-2.944, +2.944]" in progress[-1]
    pairs = int(progress[-1].split()[1])
    assert pairs < 60  # greedy wins nearly every game: a quick decision


def test_random_against_greedy_accepts_h0_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = sprt(
        capsys, "random", "greedy", "--elo0", "0", "--elo1", "50", "--max-pairs", "200", "--json"
    )
    assert status == 0
    result = json.loads(out)
    assert result["verdict"] == "H0"
    assert result["llr"] <= result["bounds"][0]
    assert result["games"] == 2 * result["pairs"] == 2 * sum(result["pentanomial"])
    assert result["elo"] is None or result["elo"] < 0  # null: -inf, every game lost


def test_undecided_at_max_pairs_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = sprt(
        capsys,
        "greedy",
        "random",
        "--elo0",
        "0",
        "--elo1",
        "50",
        "--max-pairs",
        "2",
        "--every",
        "1",
    )
    assert status == 3
    assert "inconclusive: no decision after 2 pairs" in out
    assert len([line for line in out.splitlines() if line.startswith("pairs ")]) == 2


def test_a_pair_is_the_same_deals_with_the_seats_swapped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, _ = sprt(
        capsys, "greedy", "random", "--elo0", "0", "--elo1", "50", "--max-pairs", "2",
        "--seed", "40", "--replays", str(tmp_path),
    )  # fmt: skip
    assert status == 3
    replays = sorted(path.name for path in tmp_path.glob("*.jsonl"))
    assert replays == [f"sprt-{pair}-new{seat}.jsonl" for pair in (0, 1) for seat in (0, 1)]
    for pair in (0, 1):
        first, second = (
            list(read_replay(tmp_path / f"sprt-{pair}-new{seat}.jsonl").lines) for seat in (0, 1)
        )
        assert first[0]["seed"] == second[0]["seed"] == pair_seed(40, pair)
        assert [p["name"] for p in first[0]["players"]] == ["greedy", "random"]
        assert [p["name"] for p in second[0]["players"]] == ["random", "greedy"]
        decks = [[r["deck"] for r in records if r["type"] == "deal"] for records in (first, second)]
        assert decks[0][0] == decks[1][0]  # the first deal at least: later ones follow play


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--elo0", "10", "--elo1", "0"], "elo0"),
        (["--elo0", "0", "--elo1", "10", "--alpha", "0"], "alpha"),
        (["--elo0", "0", "--elo1", "10", "--max-pairs", "0"], "--max-pairs"),
        (["--elo0", "0", "--elo1", "10", "--rules", "nonsense"], "nonsense"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], named: str
) -> None:
    status, out, err = sprt(capsys, "greedy", "random", *args)
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and named in err


CRASHER = """
    from arena.plugins import hookimpl
    from arena.sdk import Bot

    class Crasher(Bot):
        name = "sprt-crasher"

        def decide(self, decision):
            raise RuntimeError("crashes on purpose")

    @hookimpl
    def arena_register_bots():
        return [Crasher]
"""


def test_a_crashing_bot_stops_the_test_with_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sprt_crasher_plugin.py").write_text(textwrap.dedent(CRASHER))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        status, out, _ = sprt(
            capsys, "sprt-crasher", "random", "--elo0", "0", "--elo1", "10",
            "-p", "sprt_crasher_plugin",
        )  # fmt: skip
    finally:
        sys.modules.pop("sprt_crasher_plugin", None)
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith("SPRT sprt-crasher vs random: ")  # it started
    assert lines[1].startswith("stopped: NEW sprt-crasher: crashed: ")  # no pair counted
    assert "0 pairs" in out


def test_pair_seeds_are_fresh_one_way_and_revealed_after_the_pair(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Without --seed each run draws its own seed (printed, so --seed repeats it); the
    pairs' seeds do not follow each other (a bot told one at a pair's end learns
    nothing of the next), and only a pair's second match reveals it to the bots."""
    runs = []
    for name in ("a", "b"):
        status, out, _ = sprt(
            capsys, "greedy", "random", "--elo0", "0", "--elo1", "50", "--max-pairs", "2",
            "--json", "--replays", str(tmp_path / name),
        )  # fmt: skip
        assert status == 3
        runs.append(json.loads(out))
    assert runs[0]["seed"] != runs[1]["seed"]
    folder = tmp_path / "a"
    seeds = [read_replay(folder / f"sprt-{pair}-new0.jsonl").lines[0]["seed"] for pair in (0, 1)]
    assert seeds == [pair_seed(runs[0]["seed"], pair) for pair in (0, 1)]
    assert abs(seeds[1] - seeds[0]) > 1_000_000
    for pair in (0, 1):
        revealed = [
            list(read_replay(folder / f"sprt-{pair}-new{seat}.jsonl").lines)[-1]["result"][
                "seed_revealed_to_bots"
            ]
            for seat in (0, 1)
        ]
        assert revealed == [False, True]
    status, out, _ = sprt(
        capsys, "greedy", "random", "--elo0", "0", "--elo1", "50", "--max-pairs", "2",
        "--json", "--seed", str(runs[0]["seed"]), "--replays", str(tmp_path / "again"),
    )  # fmt: skip
    again = [
        read_replay(tmp_path / "again" / f"sprt-{p}-new0.jsonl").lines[0]["seed"] for p in (0, 1)
    ]
    assert again == seeds


def test_progress_says_how_long_the_test_may_run(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = sprt(
        capsys, "simple", "greedy", "--elo0", "0", "--elo1", "50", "--hands",
        "--max-pairs", "6", "--every", "2",
    )  # fmt: skip
    assert status in (0, 3)
    lines = out.splitlines()
    assert lines[0].startswith("SPRT simple vs greedy: H0 elo 0, H1 elo 50")
    assert "--max-pairs 6 stops it undecided (12 games)" in lines[0]
    progress = [line for line in lines if line.startswith("pairs ")]
    assert [int(line.split()[1]) for line in progress][:2] == [2, 4]
    for line in progress:
        pairs = int(line.split()[1])
        tail = line.split("]  ")[-1]
        if pairs < 6 and "decided" not in tail:  # a guess, and the cap it runs into
            assert "pairs left" in tail or f"--max-pairs stops it in {6 - pairs}" in tail


def test_pairs_left_follows_the_pace_of_the_llr() -> None:
    from arena.cli.sprt import pairs_left

    test = SequentialTest(0, 50)
    assert pairs_left(test) is None  # nothing played
    for score in (2.0, 1.0, 2.0, 1.0):
        test.add(score)
    pace = test.llr / 4
    assert pace > 0
    assert pairs_left(test) == math.ceil((test.upper - test.llr) / pace)
    losing = SequentialTest(0, 50)
    for score in (0.0, 1.0, 0.0):
        losing.add(score)
    assert losing.llr < 0
    assert pairs_left(losing) == math.ceil((losing.lower - losing.llr) / (losing.llr / 3))
