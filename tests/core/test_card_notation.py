"""The one card-notation contract (docs/cards.md), on every card argument of every game.

For each ``Odds.cards`` argument: a random valid value written and read back is the
value; a random text is either refused with one line (``ValueError``) or read into cards
whose canonical form reads back the same, one card per token — never a traceback, never
a card dropped or two tokens merged.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.bango import rules as bango
from simulators.core.game import get_game, registered_names

ARGUMENTS = [(game, name) for game in registered_names()
             for name in (get_game(game).odds.cards if get_game(game).odds else {})]

# the valid values of each argument: what its `read` returns
DISTINCT_32 = st.lists(st.integers(0, 31), min_size=1, max_size=8, unique=True)


def _kinds(limit, copies) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, limit - 1), min_size=1, max_size=10).filter(
        lambda ks: all(ks.count(k) <= copies(k) for k in set(ks)))


def _bango_sequence(draw) -> list[int]:
    length = draw(st.integers(2, 5))
    low = draw(st.integers(1, bango.N_VALUES - length + 1))
    colours = draw(st.lists(st.integers(0, bango.BLACK - 1), min_size=length, max_size=length))
    return [bango.kind(v, c) for v, c in zip(range(low, low + length), colours, strict=True)]


@st.composite
def _bango_sequences(draw) -> list[list[int]]:
    return [_bango_sequence(draw) for _ in range(draw(st.integers(1, 3)))]


VALID = {
    ("bianco-mano", "hand"): DISTINCT_32, ("bianco-mano", "turned"): st.integers(0, 31),
    ("manille", "hand"): DISTINCT_32, ("truc", "hand"): DISTINCT_32,
    ("bango", "hand"): _kinds(55, lambda k: int(bango.KIND_COPIES[k])),
    ("bango", "centre"): _kinds(55, lambda k: int(bango.KIND_COPIES[k])),
    ("bango", "seen"): _kinds(55, lambda k: int(bango.KIND_COPIES[k])),
    ("bango", "sequences"): _bango_sequences(),
    ("five-crowns", "hand"): _kinds(56, lambda k: 6 if k == 55 else 2),
    ("five-crowns", "seen"): _kinds(56, lambda k: 6 if k == 55 else 2),
    ("five-crowns", "discard"): st.integers(0, 55),
}

# letters of every game's notation, both cases, separators and junk
ALPHABET = "0123456789AaBbCcDdEeHhJjKkNnPpQqRrSsTtVvYy*;, -\t♠x"


def _cards_in(value) -> list[int]:
    if isinstance(value, int):
        return [value]
    return [c for part in value for c in (part if isinstance(part, list) else [part])]


def test_every_game_with_odds_declares_its_card_arguments():
    assert set(ARGUMENTS) == set(VALID)


@pytest.mark.parametrize("game, name", ARGUMENTS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_valid_value_written_then_read_is_the_value(game, name, data):
    argument = get_game(game).odds.cards[name]
    value = data.draw(VALID[(game, name)])
    text = argument.write(value)
    assert argument.read(text) == value
    assert argument.read(text.lower()) == value  # either case
    assert argument.read(text.replace(" ", ", ")) == value  # commas separate like spaces


TOKENS = ["1R", "2r", "8V", "9J", "10P", "ap", "7", "v", "5Y", "11b", "4K", "7B", "8b", "9B",
          "10H", "jk", "Q*", "3e", "KS", "0R", "1R1B", "XX", "12Y", "♠"]
SEPARATORS = [" ", ",", ", ", "  ", ";", "; ", " ,"]


@st.composite
def _texts(draw) -> str:
    """Random text: characters of every notation, or real tokens (and junk) with separators."""
    if draw(st.booleans()):
        return draw(st.text(alphabet=ALPHABET, max_size=24))
    tokens = draw(st.lists(st.sampled_from(TOKENS), min_size=0, max_size=6))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(tokens), max_size=len(tokens)))
    return "".join(t + s for t, s in zip(tokens, seps, strict=True))


@pytest.mark.parametrize("game, name", ARGUMENTS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts())
def test_any_text_is_refused_in_one_line_or_read_one_card_per_token(game, name, text):
    argument = get_game(game).odds.cards[name]
    try:
        value = argument.read(text)
    except ValueError as error:
        assert str(error) and "\n" not in str(error)
        return
    canonical = argument.write(value)
    assert argument.read(canonical) == value  # the echo reads back as what was understood
    tokens = [t for t in re.split(r"[\s,;]+", text) if t]
    assert len(_cards_in(value)) == len(tokens), (text, canonical)  # nothing dropped, merged
