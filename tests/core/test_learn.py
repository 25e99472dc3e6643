"""The learned players' core (simulators/core/learn): the numpy net and its weights file,
the canonical suit order of the trick games' card features."""

from __future__ import annotations

import numpy as np
import pytest

from simulators.core.learn import cards as C
from simulators.core.learn import mlp


def _net(meta=None) -> mlp.Mlp:
    w0 = np.array([[1.0, -1.0], [0.0, 2.0], [1.0, 1.0]], np.float32)  # 3 features, 2 hidden
    w1 = np.array([[1.0, 0.0, -1.0], [0.5, 1.0, 0.0]], np.float32)  # 3 actions
    return mlp.Mlp(np.array([1.0, 0.0, 0.0], np.float32), np.array([2.0, 1.0, 1.0], np.float32),
                   (w0, w1), (np.zeros(2, np.float32), np.array([0.0, 0.0, 0.5], np.float32)),
                   meta or {"game": "g", "decision": "d", "n_features": 3, "n_actions": 3})


def test_the_net_scores_by_hand():
    """x = (3, 1, 0): standardised (1, 1, 0); hidden relu(1*1 + 1*0, -1 + 2) = (1, 1);
    scores (1 + 0.5, 0 + 1, -1 + 0 + 0.5) = (1.5, 1, -0.5)."""
    net = _net()
    assert net.scores(np.array([[3.0, 1.0, 0.0]])).tolist() == [[1.5, 1.0, -0.5]]
    assert net.best(np.array([[3.0, 1.0, 0.0]] * 2), np.array([[1, 1, 1], [0, 1, 1]])).tolist() \
        == [0, 1]  # the best legal action
    assert net.n_parameters == 6 + 2 + 6 + 3


def test_loading_flushes_subnormal_weights_to_zero_and_keeps_the_rest(tmp_path):
    """A weight a decay drove below float32's smallest normal (1.2e-38) loads as 0 (a slow
    path on some CPUs); every other weight and the scores by hand are unchanged."""
    net = _net()
    w0 = net.weights[0].copy()
    w0[1, 0] = np.float32(3e-40)  # subnormal
    w0[2, 1] = np.float32(-2e-39)  # subnormal
    path = tmp_path / "w.npz"
    mlp.save(path, mlp.Mlp(net.mean, net.scale, (w0, net.weights[1]), net.biases, net.meta))
    again = mlp.load(path, game="g", decision="d", n_features=3, n_actions=3)
    assert again.weights[0][1, 0] == 0.0 and again.weights[0][2, 1] == 0.0
    assert np.array_equal(again.weights[0], net.weights[0] * np.array([[1, 1], [0, 1], [1, 0]]))
    assert again.scores(np.array([[3.0, 1.0, 0.0]])).tolist() == [[1.5, 1.0, -0.5]]
    tiny = np.finfo(np.float32).tiny
    kept = mlp.flush_subnormals(np.array([tiny, -tiny, tiny / 2, 0.0], np.float32))
    assert kept.tolist() == [tiny, -tiny, 0.0, 0.0]


def test_weights_round_trip_and_refuse_what_does_not_fit(tmp_path):
    path = tmp_path / "w.npz"
    mlp.save(path, _net())
    again = mlp.load(path, game="g", decision="d", n_features=3, n_actions=3)
    assert again.scores(np.array([[3.0, 1.0, 0.0]])).tolist() == [[1.5, 1.0, -0.5]]
    with pytest.raises(ValueError, match="holds a net for game 'g', not 'other'"):
        mlp.load(path, game="other", decision="d", n_features=3, n_actions=3)
    with pytest.raises(ValueError, match="holds a net for decision 'd', not 'bid'"):
        mlp.load(path, game="g", decision="bid", n_features=3, n_actions=3)
    with pytest.raises(ValueError, match="wrong shape: 3 features and 3 actions, this player "
                                         "needs 4 and 3"):
        mlp.load(path, game="g", decision="d", n_features=4, n_actions=3)
    with pytest.raises(ValueError, match="no weights file"):
        mlp.load(tmp_path / "none.npz", game="g", decision="d", n_features=3, n_actions=3)
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a weights file"):
        mlp.load(tmp_path / "bad.npz", game="g", decision="d", n_features=3, n_actions=3)


def test_the_canonical_suit_order_puts_the_trump_first_and_is_its_own_inverse():
    # a card is 4 * rank + suit: with trump 2, suit 2 <-> suit 0, suits 1 and 3 stay
    assert C.CANONICAL[2][[0, 1, 2, 3, 4, 6]].tolist() == [2, 1, 0, 3, 6, 4]
    assert C.CANONICAL[4].tolist() == list(range(32))  # no trump: the table's order
    for t in range(5):
        assert (C.CANONICAL[t][C.CANONICAL[t]] == np.arange(32)).all()
    columns = C.mask_bits(np.array([1 << 2 | 1 << 5, 1 << 2], np.uint32))
    canon = C.canonical(columns, np.array([2, 4]))
    assert np.flatnonzero(canon[0]).tolist() == [0, 5] and np.flatnonzero(canon[1]).tolist() == [2]
    assert C.from_canonical(np.array([0, 2]), np.array([2, 4])).tolist() == [2, 2]


def test_the_weights_digest_changes_with_any_weights_file_and_nothing_else(tmp_path):
    """A certify study is kept under the digest of the nets it plays (analysis.learn): the
    same files give the same digest; changing or adding a weights file changes it."""
    from analysis.learn import weights_digest

    (tmp_path / "weights-card.npz").write_bytes(b"card")
    (tmp_path / "labels.txt").write_bytes(b"not a net")
    first = weights_digest(tmp_path)
    assert len(first) == 12 and weights_digest(tmp_path) == first
    (tmp_path / "labels.txt").write_bytes(b"changed")
    assert weights_digest(tmp_path) == first
    (tmp_path / "weights-bid.npz").write_bytes(b"bid")
    second = weights_digest(tmp_path)
    assert second != first
    (tmp_path / "weights-card.npz").write_bytes(b"card, retrained")
    assert weights_digest(tmp_path) not in (first, second)


def test_canonical_blocks_is_the_canonical_order_of_every_column():
    """The learned players' card blocks put in canonical order by swapping two suits equal
    the gather through CANONICAL, for every trump (4: sans atout, no swap)."""
    rng = np.random.default_rng(3)
    blocks = rng.random((200, 5, 32)).astype(np.float32)
    trump = rng.integers(0, 5, 200)
    want = np.take_along_axis(blocks, C.CANONICAL[trump][:, None, :], axis=2)
    assert np.array_equal(C.canonical_blocks(blocks, trump), want)
    assert np.array_equal(blocks[trump == 4], C.canonical_blocks(blocks, trump)[trump == 4])


def test_the_card_blocks_kernel_writes_a_hand_made_deal():
    """Two rows, four seats, play going down the seat numbers (step -1): row 0 (trump 1: its
    suits 0 and 1 swap places) is seat 2 at trick 1 after trick 0 was led by seat 3 and
    trick 1 by seat 1; row 1 (no trump) sits at trick 0, nothing played."""
    plays = np.full((2, 8, 4), -1)
    plays[0, 0] = [4 * 0 + 1, 4 * 2 + 1, 4 * 7 + 0, 4 * 3 + 1]  # seats 3, 2, 1, 0
    plays[0, 1, 0] = 4 * 5 + 2  # seat 1 leads trick 1
    leaders = np.full((2, 8), -1)
    leaders[0, :2] = [3, 1]
    leaders[1, 0] = 0
    out = np.zeros((2, 12 * 32), np.float32)
    C.write_card_blocks(out, np.array([1, 4]), {0: np.array([1 << 9, 1 << 31]), 3: 0},
                        {11: np.array([4 * 5 + 2, -1])}, plays, leaders, np.array([2, 0]),
                        np.array([1, 0]), n_seats=4, step=-1, played_at=4, trick_at=7)
    want = np.zeros((2, 12, 32), np.float32)
    want[0, 0, 4 * 2 + 0] = 1.0  # card 9 (rank 2, suit 1) is canonical suit 0
    want[1, 0, 31] = 1.0
    # trick 0 led by seat 3: seat 3 is relation (3 - 2) % 4 = 1, seat 2 is 0, seat 1 is 3,
    # seat 0 is 2; suit 1 -> 0, suit 0 -> 1
    want[0, 4 + 1, 4 * 0 + 0] = want[0, 4 + 0, 4 * 2 + 0] = 1.0
    want[0, 4 + 3, 4 * 7 + 1] = want[0, 4 + 2, 4 * 3 + 0] = 1.0
    want[0, 4 + 3, 4 * 5 + 2] = want[0, 7 + 3, 4 * 5 + 2] = 1.0  # trick 1: seat 1, relation 3
    want[0, 11, 4 * 5 + 2] = 1.0
    assert np.array_equal(out, want.reshape(2, -1))


def test_the_fitted_values_are_centred_and_clipped_below_the_best():
    """Row [3, -47, 1, illegal]: centred on the legal mean -43/3; with clip 10 the -47 is
    fitted as 3 - 10 = -7 first (mean -1): the hopeless action no longer dominates."""
    from analysis.learn import centred

    values = np.array([[3.0, -47.0, 1.0, np.nan]])
    legal = np.array([[True, True, True, False]])
    assert np.allclose(centred(values, legal), [[3 + 43 / 3, -47 + 43 / 3, 1 + 43 / 3, 0]])
    assert np.allclose(centred(values, legal, clip=10.0), [[4.0, -6.0, 2.0, 0.0]])


def test_a_net_policy_of_any_game_reads_its_primary_net_and_the_others_beside_it(tmp_path):
    """NetDecisions with a primary decision other than card (Five Crowns' discard): the
    draw net is found beside weights-discard.npz, and a missing primary file is refused
    with the parameter's name."""
    import shutil

    from simulators.five_crowns.learn import LEARN, NetPolicy

    shutil.copyfile(LEARN.shipped["discard"], tmp_path / "weights-discard.npz")
    policy = NetPolicy(weights=str(tmp_path / "weights-discard.npz"))
    assert policy.decision_net("draw") is None  # none beside it: the heuristic's draw
    shutil.copyfile(LEARN.shipped["draw"], tmp_path / "weights-draw.npz")
    from simulators.core.learn.policy import sibling_net

    sibling_net.cache_clear()
    assert NetPolicy(weights=str(tmp_path / "weights-discard.npz")).decision_net("draw") \
        is not None
    with pytest.raises(ValueError, match="NetPolicy.weights: no weights file"):
        NetPolicy(weights=str(tmp_path / "none.npz"))


def test_the_margin_keeps_the_base_answer_on_close_calls_and_asks_for_it_only_there():
    """``play_gated`` by hand, the net's scores being the features: the base policy's answer
    is asked only on rows whose best two legal scores are less than the margin apart, and
    kept there when it scores less than the margin below the best; margin 0 never asks."""
    from typing import NamedTuple

    from simulators.core.learn.spec import Decision, play_chosen, play_gated

    class Obs(NamedTuple):
        x: np.ndarray
        legal: np.ndarray

    class ScoresAreFeatures:
        def scores(self, features):
            return np.asarray(features, np.float32)

    x = np.array([[1.0, 0.9, 0.0], [2.0, 1.0, 0.0], [1.0, 0.0, 0.8], [0.0, 0.0, 5.0],
                  [1.0, 0.8, 0.7], [1.0, 0.8, 0.0], [1.0, 0.8, 0.0]])
    legal = np.ones((7, 3), bool)
    legal[2, 2] = False  # its best two legal: 1.0 and 0.0
    legal[3] = [False, False, True]  # one legal card: not the net's
    own = np.array([1, 1, 1, 0, 2, 2, -1])  # -1: an answer that is none of the net's actions
    decision = Decision("d", 3, 3, features=lambda o: o.x, legal=lambda o: o.legal,
                        teacher_values=None, action=lambda o, index: index, snapshot=None,
                        restore=None)
    asked = []

    def own_index(rows):
        asked.append(rows)
        return own[rows]

    obs, net = Obs(x, legal), ScoresAreFeatures()
    assert play_gated(decision, net, obs, own_index, 0.5).tolist() == [1, 0, 0, 2, 2, 0, 0]
    assert np.concatenate(asked).tolist() == [0, 4, 5, 6]
    assert play_chosen(decision, net, obs).tolist() == [0, 0, 0, 2, 0, 0, 0]  # never asks


def test_the_parser_offers_the_certificate_designs_the_study_knows():
    """``learn certify --design`` lists its choices without importing the study (a light
    parser): the two lists must be the same."""
    from analysis import learn
    from analysis.commands import learn as command

    assert command.DESIGNS == learn.DESIGNS
