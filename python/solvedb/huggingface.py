"""solvedb's datasets for Hugging Face ``datasets``, built locally (no
network: the rows come from the tables inside the package), and their
dataset cards.

:func:`load_dataset` gives a ``datasets.DatasetDict`` with the ``train``,
``validation`` and ``test`` splits of :meth:`solvedb.datasets.Dataset.split`
(by canonical class: no symmetric image crosses a split), each built by
``datasets.Dataset.from_generator``. :func:`card` writes a game's dataset
card (YAML metadata with the splits, counts and licence, then a short
description), as the committed ``docs/dataset-cards/*.md``. Needs
``datasets`` (``pip install datasets``).

>>> import tempfile
>>> splits = load_dataset("tictactoe", cache_dir=tempfile.mkdtemp())
>>> {name: len(rows) for name, rows in splits.items()}
{'train': 612, 'validation': 76, 'test': 77}
>>> row = splits["train"][0]
>>> sorted(row)[:4], len(row["spatial"]), len(row["legal"])
(['best_moves', 'canonical_id', 'code', 'legal'], 2, 9)
"""

from typing import Any, Dict, Iterator, Optional, Tuple

import numpy as np

from .datasets import Dataset, load, split_sides
from ._boards import is_dots, move_slots, spatial
from ._solvedb import Oracle, games

__all__ = ["card", "features", "load_dataset", "rows"]

LICENSE = ("mit", "apache-2.0")


def features(data: Dataset) -> Any:
    """The ``datasets.Features`` of a game's rows."""
    import datasets as hf

    channels, height, width = spatial(data.game, np.zeros((1, 2), dtype=np.uint64)).shape[1:]
    slots = move_slots(data.game)
    return hf.Features(
        {
            "position": hf.Value("string"),
            "code": hf.Sequence(hf.Value("uint64"), length=2),
            "canonical_id": hf.Value("uint64"),
            "to_move": hf.Value("int8"),
            "stored": hf.Value("bool"),
            "value": hf.Value("int8"),
            "result": hf.Value("int8"),
            "plies": hf.Value("uint8"),
            "spatial": hf.Array3D(shape=(channels, height, width), dtype="uint8"),
            "move_value": hf.Sequence(hf.Value("int8"), length=slots),
            "legal": hf.Sequence(hf.Value("bool"), length=slots),
            "best_moves": hf.Sequence(hf.Value("bool"), length=slots),
        }
    )


def rows(data: Dataset) -> Iterator[Dict[str, Any]]:
    """The rows of ``data`` as dicts of the :func:`features` (``to_move``
    -1 for dots-and-boxes, which has no side to move in its values)."""
    positions = data.positions()
    spatial = data.spatial
    best = data.best_moves
    to_move = data.to_move if data.to_move is not None else np.full(len(data), -1, dtype=np.int8)
    for i in range(len(data)):
        yield {
            "position": positions[i],
            "code": data.code[i].tolist(),
            "canonical_id": int(data.canonical_id[i]),
            "to_move": int(to_move[i]),
            "stored": bool(data.stored[i]),
            "value": int(data.value[i]),
            "result": int(data.result[i]),
            "plies": int(data.plies[i]),
            "spatial": spatial[i],
            "move_value": data.move_value[i].tolist(),
            "legal": data.legal[i].tolist(),
            "best_moves": best[i].tolist(),
        }


def _generate(game: str, side: str, seed: int, all_symmetries: bool,
              fractions: Tuple[float, float, float], tables_dir: Optional[str]) -> Iterator[Dict[str, Any]]:
    # The oracle goes by its directory: `datasets` pickles these arguments.
    oracle = None if tables_dir is None else Oracle(tables_dir)
    split = load(game, all_symmetries=all_symmetries, oracle=oracle).split(seed=seed, fractions=fractions)
    yield from rows(getattr(split, side))


def load_dataset(
    game: str,
    *,
    seed: int = 0,
    all_symmetries: bool = False,
    fractions: Tuple[float, float, float] = (0.8, 0.1, 0.1),
    oracle: Optional[Oracle] = None,
    cache_dir: Optional[str] = None,
) -> Any:
    """A ``datasets.DatasetDict`` of ``game``'s rows split by canonical
    class (see :meth:`~solvedb.datasets.Dataset.split`), built offline by
    ``datasets.Dataset.from_generator`` into ``cache_dir`` (by default
    the ``datasets`` cache)."""
    import datasets as hf

    sample = load(game, all_symmetries=all_symmetries, sample=1, oracle=oracle)
    schema = features(sample)
    out = {}
    for side in ("train", "validation", "test"):
        out[side] = hf.Dataset.from_generator(
            _generate,
            features=schema,
            cache_dir=cache_dir,
            gen_kwargs={
                "game": game, "side": side, "seed": seed, "all_symmetries": all_symmetries,
                "fractions": fractions,
                "tables_dir": None if oracle is None or oracle.tables_dir is None else str(oracle.tables_dir),
            },
        )
    return hf.DatasetDict(out)


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                        (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")):
        if n < limit:
            return name
    return "10M<n<100M"


def card(game: str, *, seed: int = 0, oracle: Optional[Oracle] = None) -> str:
    """The dataset card of ``game`` (Hugging Face's format: YAML metadata,
    then Markdown): licence, splits and counts of the canonical rows and of
    every image, computed from the tables (each split by ``seed``)."""
    from . import default_oracle
    from ._boards import canonical_id

    oracle = oracle or default_oracle()
    title = next((g.title for g in games() if g.name == game), game)
    counts = {}
    sizes = {}
    for config, images in (("default", False), ("all_symmetries", True)):
        # Values only (no move columns): the rows' classes are all a split needs.
        codes = oracle.table_arrays(game, all_symmetries=images, moves=False).code
        sides = split_sides(canonical_id(game, codes), seed)
        counts[config] = {name: int((sides == i).sum()) for i, name in enumerate(("train", "validation", "test"))}
        sizes[config] = len(codes)
    lines = ["---", "license:"] + [f"- {name}" for name in LICENSE]
    lines += [
        f"pretty_name: solvedb {title}",
        "tags:",
        "- games",
        "- perfect-play",
        "- dots-and-boxes" if is_dots(game) else "- tic-tac-toe",
        "size_categories:",
        f"- {_size_category(sizes['all_symmetries'])}",
        "dataset_info:",
    ]
    for config, split in counts.items():
        lines += [f"- config_name: {config}", "  splits:"]
        for name, n in split.items():
            lines += [f"  - name: {name}", f"    num_examples: {n}"]
    lines += ["---", ""]
    value = ("`value`: the net number of still unclaimed boxes the side to move wins"
             if is_dots(game) else "`result`: 1 win, 0 draw, -1 loss for the side to move, `plies` to the end")
    lines += [
        f"# solvedb {title}",
        "",
        f"Every position of solvedb's `{game}` table with its exact value under perfect play "
        f"and every move's value: {sizes['default']:,} canonical positions, {sizes['all_symmetries']:,} "
        "with every symmetric image (`all_symmetries`).",
        "",
        f"- Values: {value}; a move's value is its mover's, from before the move.",
        "- Splits: train/validation/test, 80/10/10 of the canonical classes, shuffled by "
        f"seed {seed}; a position and all its symmetric images are on one side "
        "(`canonical_id`).",
        "- Load: `solvedb.huggingface.load_dataset(\"" + game + "\")` (offline, from the "
        "tables inside the package) or `solvedb.datasets.load(\"" + game + "\").split(seed=0)`.",
        "- Columns, value convention and how the rows are checked: `docs/datasets.md`.",
        "- Licence: MIT or Apache-2.0, as solvedb.",
        "- Regenerate: `python -c 'import solvedb.huggingface as h; print(h.card(\"" + game + "\"), end=\"\")'`.",
        "",
    ]
    return "\n".join(lines)
