"""Datasets as learning programs use them: canonical classes and leak-free
splits, slicing, spatial planes, policy targets, PyTorch tensors, the
Hugging Face loader and the dataset cards."""


import numpy as np
import pytest

import solvedb
import solvedb.datasets
from conftest import REPO

CARDS = REPO / "docs" / "dataset-cards"


def image_sets(data):
    """The symmetric images of each row, computed without solvedb's
    canonical forms: tic-tac-toe's 8 symmetries of the 3x3 planes."""
    planes = data.planes
    images = []
    for k in range(4):
        turned = np.rot90(planes, k, axes=(2, 3))
        images += [turned, turned[:, :, :, ::-1]]
    return images


def keys(planes):
    return [p.tobytes() for p in planes]


def test_canonical_ids_equal_exactly_for_symmetric_images():
    data = solvedb.datasets.load("tictactoe", all_symmetries=True)
    # The classes are the canonical positions: 765 of them.
    assert len(np.unique(data.canonical_id)) == len(solvedb.datasets.load("tictactoe")) == 765
    # Symmetric images (by numpy's rotations and flips, not solvedb's
    # code) share the id; positions that are no image of each other do not.
    by_board = {k: i for i, k in enumerate(keys(data.planes))}
    orbit_min = np.full(len(data), len(data))
    for image in image_sets(data):
        idx = np.array([by_board[k] for k in keys(image)])
        assert np.array_equal(data.canonical_id[idx], data.canonical_id)
        orbit_min = np.minimum(orbit_min, idx)
    assert len(np.unique(orbit_min)) == len(np.unique(data.canonical_id))


def test_split_by_class_has_no_symmetric_leak():
    data = solvedb.datasets.load("tictactoe", all_symmetries=True)
    splits = data.split(seed=7)
    sides = [splits.train, splits.validation, splits.test]
    assert sum(len(s) for s in sides) == len(data)
    # No board of one side is a rotation or reflection of a board on another.
    boards = [set(keys(s.planes)) for s in sides]
    for i, side in enumerate(sides):
        for image in image_sets(side):
            for j, other in enumerate(boards):
                if j != i:
                    assert not set(keys(image)) & other
    # Seeded and documented: the same seed, the same split; fractions hold
    # over the classes.
    again = data.split(seed=7)
    assert np.array_equal(again.test.code, splits.test.code)
    assert not np.array_equal(data.split(seed=8).test.code, splits.test.code)
    classes = [len(np.unique(s.canonical_id)) for s in sides]
    assert classes == [612, 76, 77]
    # A random row split, for contrast, does put images on both sides.
    order = np.random.default_rng(0).permutation(len(data))
    train, test = data[order[:4000]], data[order[4000:]]
    assert set(train.canonical_id.tolist()) & set(test.canonical_id.tolist())


def test_slicing_and_rows():
    data = solvedb.datasets.load("dots:2x2")
    part = data[5:9]
    assert len(part) == 4 and np.array_equal(part.code, data.code[5:9])
    picked = data[[3, 1]]
    assert picked.positions() == [data.positions()[3], data.positions()[1]]
    mask = data.value > 0
    assert len(data[mask]) == int(mask.sum()) and (data[mask].value > 0).all()
    row = data[-1]
    assert row["value"] == data.value[-1] and row["to_move"] is None
    with pytest.raises(solvedb.InputError, match="^index"):
        data[len(data)]
    with pytest.raises(solvedb.InputError, match="^index"):
        data[np.array([0.5])]


def test_spatial_planes_hold_every_edge_and_stone():
    for game in ("dots:2x3", "dots:3x2", "tictactoe", "tictactoe:4x4", "cube"):
        data = solvedb.datasets.load(game, sample=300, seed=1)
        spatial = data.spatial
        assert spatial.ndim == 4, game
        # The same stones or edges as the flat planes, each exactly once.
        assert np.array_equal(spatial.reshape(len(data), -1).sum(axis=1),
                              data.planes.reshape(len(data), -1).sum(axis=1)), game
    dots = solvedb.datasets.load("dots:2x3", sample=300, seed=1)
    assert dots.spatial.shape[1:] == (2, 3, 4)
    # Edge by edge, from the notation: one edge "hR,C" is plane 0 at (R, C),
    # "vR,C" plane 1 at (R, C), as solvedb's parser reads them.
    oracle = solvedb.Oracle()
    for kind, plane, rows, cols in (("h", 0, 3, 3), ("v", 1, 2, 4)):
        for r in range(rows):
            for c in range(cols):
                code = oracle.probe_arrays("dots:2x3", [f"2x3:{kind}{r},{c}"], moves=False).code
                grid = solvedb.datasets.spatial("dots:2x3", code)[0]
                assert grid.sum() == 1 and grid[plane, r, c] == 1, (kind, r, c)
    cube = solvedb.datasets.load("cube", sample=10, seed=2)
    assert cube.spatial.shape[1:] == (6, 3, 3)


def test_policy_targets_are_the_best_moves():
    data = solvedb.datasets.load("tictactoe")
    oracle = solvedb.Oracle()
    for i in range(0, len(data), 37):
        report = oracle.moves("tictactoe", data.positions()[i])
        best = {int(m.move) for m in report.moves if m.result == report.result}
        assert set(np.flatnonzero(data.best_moves[i]).tolist()) == best
        if best:
            assert data.policy[i].sum() == pytest.approx(1.0)
        else:
            assert data.policy[i].sum() == 0
    dots = solvedb.datasets.load("dots:2x2", sample=50, seed=3)
    for i in range(50):
        report = oracle.moves("dots:2x2", dots.positions()[i])
        top = [m for m in report.moves if m.value == report.value]
        assert dots.best_moves[i].sum() == len(top)


def test_to_torch():
    torch = pytest.importorskip("torch")
    data = solvedb.datasets.load("tictactoe")
    tensors = data.to_torch()
    assert tensors["spatial"].shape == (765, 2, 3, 3) and tensors["spatial"].dtype == torch.float32
    assert torch.equal(tensors["value"], torch.from_numpy(data.value))
    assert tensors["canonical_id"].dtype == torch.int64


def test_hugging_face_loader(tmp_path):
    pytest.importorskip("datasets")
    import solvedb.huggingface as hf

    splits = hf.load_dataset("dots:2x2", seed=3, cache_dir=str(tmp_path))
    ours = solvedb.datasets.load("dots:2x2").split(seed=3)
    for name, part in ours.items():
        rows = splits[name]
        assert len(rows) == len(part)
        assert rows["canonical_id"] == part.canonical_id.tolist()
        assert rows["value"] == part.value.tolist()
        assert np.array_equal(np.array(rows[0]["spatial"]), part.spatial[0])


@pytest.mark.parametrize("game", ["tictactoe", "dots:2x2", "dots:2x3"])
def test_committed_dataset_cards_are_what_the_tables_give(game):
    pytest.importorskip("datasets")
    import solvedb.huggingface as hf

    path = CARDS / (game.replace(":", "-") + ".md")
    assert path.read_text() == hf.card(game)


def test_every_dataset_game_has_a_card():
    names = {g.name for g in solvedb.games() if g.table == "default" and g.name != "qubic"}
    cards = {p.stem.replace("-", ":", 1) for p in CARDS.glob("*.md")}
    assert names <= cards
