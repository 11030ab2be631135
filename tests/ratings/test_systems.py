"""The rating systems behind one interface: TrueSkill and Weng-Lin (OpenSkill's
Plackett-Luce).  Expected values come from the packages directly."""

from __future__ import annotations

from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from arena.ladder.config import LadderConfig, LadderConfigError, load_ladder_config
from arena.ratings import (
    DEFAULT_ENV,
    SYSTEM_NAMES,
    Rating,
    RatingSystemName,
    UnknownRatingSystem,
    rate,
    rating_system,
)
from arena.ratings.openskill_ratings import OpenSkill


def test_every_name_gives_its_system_on_one_scale() -> None:
    assert SYSTEM_NAMES == ("trueskill", "openskill")
    for name in SYSTEM_NAMES:
        system = rating_system(name)
        assert system.name == name
        assert system.initial() == Rating(25.0, 25.0 / 3)  # mu - 3 sigma means the same
    assert rating_system("trueskill") is DEFAULT_ENV


def test_an_unknown_system_is_refused_in_one_line_naming_the_known() -> None:
    with pytest.raises(UnknownRatingSystem, match=r"^unknown rating system 'elo' \(known: trueskill, openskill\)$"):  # fmt: skip
        rating_system("elo")
    assert issubclass(UnknownRatingSystem, ValueError)


@pytest.mark.parametrize("ranks", [[0, 1], [1, 0], [0, 0], [2, 0, 1, 1, 3, 4]])
def test_openskill_is_the_packages_plackett_luce(ranks: list[int]) -> None:
    ratings = [Rating(25 + 2 * seat, 8 - seat) for seat in range(len(ranks))]
    model = PlackettLuce()
    expected = model.rate(
        [[model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings], ranks=[float(r) for r in ranks]
    )
    ours = OpenSkill().rate(ratings, ranks)
    for mine, (theirs,) in zip(ours, expected, strict=True):
        assert mine.mu == pytest.approx(theirs.mu, abs=1e-12)
        assert mine.sigma == pytest.approx(theirs.sigma, abs=1e-12)


@pytest.mark.parametrize("name", SYSTEM_NAMES)
def test_the_winner_gains_and_everyone_grows_surer(name: str) -> None:
    system = rating_system(name)
    start = [system.initial()] * 6
    after = system.rate(start, [0, 1, 2, 3, 4, 5])
    assert [r.mu for r in after] == sorted((r.mu for r in after), reverse=True)
    assert all(r.sigma < start[0].sigma for r in after)
    tied = system.rate(start[:2], [0, 0])
    assert tied[0].mu == pytest.approx(tied[1].mu)


@pytest.mark.parametrize("name", SYSTEM_NAMES)
def test_a_malformed_result_is_refused(name: str) -> None:
    system = rating_system(name)
    with pytest.raises(ValueError, match="one rank each"):
        system.rate([system.initial()] * 2, [0])
    with pytest.raises(ValueError, match="two or more"):
        system.rate([system.initial()], [0])


def test_the_module_function_still_rates_with_trueskill() -> None:
    pair = [Rating(25, 8), Rating(25, 8)]
    assert rate(pair, [0, 1]) == DEFAULT_ENV.rate(pair, [0, 1])


CONFIG = """
name = "t"
game = "gin-rummy/standard"
[[bots]]
name = "greedy"
[[bots]]
name = "random"
"""


def test_the_config_chooses_the_system_and_old_configs_keep_trueskill(tmp_path: Path) -> None:
    folder = tmp_path
    plain = folder / "plain.toml"
    plain.write_text(CONFIG)
    assert load_ladder_config(plain).rating_system is RatingSystemName.TRUESKILL
    chosen = folder / "chosen.toml"
    chosen.write_text(CONFIG + '[ratings]\nsystem = "openskill"\n')
    config = load_ladder_config(chosen)
    assert config.rating_system is RatingSystemName.OPENSKILL
    assert LadderConfig.from_json(config.to_json()) == config
    stored_before = config.to_json().replace(', "rating_system": "openskill"', "")
    assert "rating_system" not in stored_before  # a config stored before the option existed
    assert LadderConfig.from_json(stored_before).rating_system is RatingSystemName.TRUESKILL
    wrong = folder / "wrong.toml"
    wrong.write_text(CONFIG + '[ratings]\nsystem = "elo"\n')
    with pytest.raises(LadderConfigError, match=r"field 'ratings.system' must be one of trueskill, openskill, got 'elo'"):  # fmt: skip
        load_ladder_config(wrong)
