"""The artifact store: round trip, zero-copy load, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from protocol.gamedef import load_game
from solver.artifacts import ArtifactError, compress, decompressed, load_artifact, save_artifact


def test_round_trip_and_checks(tmp_path):
    game = load_game("leduc.limit.2p")
    arrays = {
        "regret": np.arange(12, dtype=np.float64).reshape(3, 4),
        "slots": np.array([1, 2, 3], np.int32),
        "empty": np.zeros(0, np.int8),
    }
    path = save_artifact(tmp_path / "s.art", "strategy", arrays, game=game, params={"iterations": 10})
    art = load_artifact(path, "strategy", game=game, params={"iterations": 10}, verify=True)
    for name, array in arrays.items():
        assert np.array_equal(art.arrays[name], array) and art.arrays[name].dtype == array.dtype
    assert isinstance(art.arrays["regret"], np.memmap)  # no copy
    with pytest.raises(ArtifactError, match=r"expected 'buckets'.*rebuild it with: make it"):
        load_artifact(path, "buckets", rebuild="make it")
    with pytest.raises(ArtifactError, match="different game"):
        load_artifact(path, "strategy", game=load_game("kuhn.limit.2p"))
    with pytest.raises(ArtifactError, match="iterations=10, expected 20"):
        load_artifact(path, "strategy", params={"iterations": 20})


def test_corrupt_and_missing_files(tmp_path):
    path = save_artifact(tmp_path / "a.art", "t", {"x": np.arange(1000, dtype=np.int64)})
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match="content hash"):
        load_artifact(path, "t", verify=True)
    path.write_bytes(bytes(data[:200]))
    with pytest.raises(ArtifactError, match="truncated"):
        load_artifact(path, "t")
    (tmp_path / "junk.art").write_bytes(b"hello world")
    with pytest.raises(ArtifactError, match="bad magic"):
        load_artifact(tmp_path / "junk.art", "t")
    with pytest.raises(ArtifactError, match="does not exist"):
        load_artifact(tmp_path / "none.art", "t")


def test_xz_shipped_artifacts_unpack_once_into_the_cache(tmp_path):
    path = save_artifact(tmp_path / "a.art", "t", {"x": np.arange(5000, dtype=np.int64)})
    (tmp_path / "ship").mkdir()
    shipped = compress(path, tmp_path / "ship" / "a.xz")
    assert shipped.stat().st_size < path.stat().st_size
    first = decompressed(shipped, tmp_path / "cache")
    assert decompressed(shipped, tmp_path / "cache") == first  # reused, not unpacked again
    art = load_artifact(first, "t", verify=True)
    assert isinstance(art.arrays["x"], np.memmap) and np.array_equal(art.arrays["x"], np.arange(5000))
    (tmp_path / "bad.xz").write_bytes(b"not xz at all")
    with pytest.raises(ArtifactError, match="not valid xz data"):
        decompressed(tmp_path / "bad.xz", tmp_path / "cache")
    with pytest.raises(ArtifactError, match="does not exist"):
        decompressed(tmp_path / "missing.xz", tmp_path / "cache")
