"""The artifact store: one file format for everything computed once and loaded later.

Layout: 8-byte magic, little-endian uint32 header length, a msgpack header, then each
array's raw bytes at a 64-byte-aligned offset.  The header records the kind, the
format version, the GameDef text the artifact was built for, the build parameters,
a content hash and each array's name, dtype, shape and offset.  Loading checks the
header against what the caller expects and maps the arrays without copying.

Lives in ``solver`` (not ``precompute``) because both solver strategies and
precompute tables use it, and ``solver`` may not import ``precompute``.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import numpy as np

from protocol.gamedef import GameDef, format_gamedef

MAGIC = b"ACPCART\x01"
FORMAT_VERSION = 1
_ALIGN = 64


class ArtifactError(Exception):
    """An artifact is missing, corrupt, or was built for something else."""


@dataclass(frozen=True)
class Artifact:
    """A loaded artifact: its header and its arrays (read-only memory maps)."""

    path: Path
    header: dict[str, Any]
    arrays: dict[str, np.ndarray]

    @property
    def params(self) -> dict[str, Any]:
        return self.header["params"]


def _content_hash(arrays: dict[str, np.ndarray]) -> str:
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(name.encode())
        digest.update(str(array.dtype).encode())
        digest.update(repr(array.shape).encode())
        digest.update(memoryview(array).cast("B"))
    return digest.hexdigest()


def save_artifact(
    path: str | Path,
    kind: str,
    arrays: dict[str, np.ndarray],
    *,
    game: GameDef | None = None,
    params: dict[str, Any] | None = None,
) -> Path:
    """Write an artifact atomically (a crash never leaves a half-written file).

    Args:
        kind: what it is (``"strategy"``, ``"buckets"``, ...), checked on load.
        arrays: name → array; any numeric dtype, any shape.
        game: the game it was built for, or None if game-independent.
        params: build parameters (msgpack-serialisable), checked on load if asked.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    entries = []
    offset = 0
    for name, array in arrays.items():
        offset = -(-offset // _ALIGN) * _ALIGN
        entries.append(
            {"name": name, "dtype": array.dtype.str, "shape": list(array.shape), "offset": offset, "nbytes": array.nbytes}
        )
        offset += array.nbytes
    header = {
        "kind": kind,
        "format_version": FORMAT_VERSION,
        "game": format_gamedef(game) if game is not None else None,
        "params": params or {},
        "content_hash": _content_hash(arrays),
        "arrays": entries,
    }
    packed = msgpack.packb(header, use_bin_type=True)
    data_start = -(-(len(MAGIC) + 4 + len(packed)) // _ALIGN) * _ALIGN
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as out:
        out.write(MAGIC + struct.pack("<I", len(packed)) + packed)
        for entry, array in zip(entries, arrays.values()):
            out.seek(data_start + entry["offset"])
            out.write(memoryview(array).cast("B"))
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    return path


def read_header(path: str | Path) -> tuple[dict[str, Any], int]:
    """The header of an artifact and the file offset where its arrays start (in the
    uncompressed bytes: an ``.xz`` artifact's header is read from its first block)."""
    path = Path(path)
    try:
        with (lzma.open(path) if path.suffix == ".xz" else open(path, "rb")) as f:
            start = f.read(len(MAGIC) + 4)
            if len(start) < len(MAGIC) + 4 or start[: len(MAGIC)] != MAGIC:
                raise ArtifactError(f"{path} is not an artifact of this project (bad magic bytes)")
            (length,) = struct.unpack("<I", start[len(MAGIC) :])
            header = msgpack.unpackb(f.read(length), raw=False)
    except FileNotFoundError:
        raise ArtifactError(f"{path} does not exist") from None
    except (ValueError, msgpack.UnpackException, lzma.LZMAError) as exc:
        raise ArtifactError(f"{path} has a corrupt header ({exc})") from None
    data_start = -(-(len(MAGIC) + 4 + length) // _ALIGN) * _ALIGN
    return header, data_start


def load_artifact(
    path: str | Path,
    kind: str,
    *,
    game: GameDef | None = None,
    params: dict[str, Any] | None = None,
    rebuild: str = "",
    verify: bool = False,
) -> Artifact:
    """Load an artifact, checking it is what the caller expects.

    Args:
        kind: the expected kind.
        game: if given, the artifact must have been built for exactly this game.
        params: if given, each of these parameters must match the artifact's.
        rebuild: the command that rebuilds it, quoted in every error message.
        verify: also recompute the content hash (reads every byte).

    Raises:
        ArtifactError: one sentence saying what is wrong and how to rebuild.
    """
    path = Path(path)
    hint = f"; rebuild it with: {rebuild}" if rebuild else ""
    try:
        header, data_start = read_header(path)
    except ArtifactError as exc:
        raise ArtifactError(f"{exc}{hint}") from None
    if header.get("format_version") != FORMAT_VERSION:
        raise ArtifactError(f"{path} has format version {header.get('format_version')}, expected {FORMAT_VERSION}{hint}")
    if header.get("kind") != kind:
        raise ArtifactError(f"{path} holds a {header.get('kind')!r} artifact, expected {kind!r}{hint}")
    if game is not None and header.get("game") != format_gamedef(game):
        raise ArtifactError(f"{path} was built for a different game{hint}")
    for key, value in (params or {}).items():
        if header["params"].get(key) != value:
            raise ArtifactError(
                f"{path} was built with {key}={header['params'].get(key)!r}, expected {value!r}{hint}"
            )
    size = path.stat().st_size
    arrays = {}
    for entry in header["arrays"]:
        start = data_start + entry["offset"]
        if entry["nbytes"] and start + entry["nbytes"] > size:
            raise ArtifactError(f"{path} is truncated (array {entry['name']!r} is cut off){hint}")
        dtype = np.dtype(entry["dtype"])
        shape = tuple(entry["shape"])
        if entry["nbytes"] == 0:
            arrays[entry["name"]] = np.zeros(shape, dtype)
        else:
            arrays[entry["name"]] = np.memmap(path, dtype=dtype, mode="r", offset=start, shape=shape)
    if verify and _content_hash(arrays) != header["content_hash"]:
        raise ArtifactError(f"{path} is corrupt (content hash mismatch){hint}")
    return Artifact(path, header, arrays)


def decompressed(path: str | Path, cache_dir: str | Path) -> Path:
    """An uncompressed copy of the xz-compressed artifact ``path``, made once in ``cache_dir``.

    Shipped artifacts are stored compressed (``.xz``) and unpacked on first use, so
    later loads memory-map the copy without reading it whole.  The copy is named by
    the compressed file's SHA-256, written atomically, and reused while it exists.

    Raises:
        ArtifactError: if ``path`` is missing or not valid xz data.
    """
    path, cache_dir = Path(path), Path(cache_dir)
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    except FileNotFoundError:
        raise ArtifactError(f"{path} does not exist") from None
    target = cache_dir / f"{path.name.removesuffix('.xz')}-{digest.hexdigest()[:16]}"
    if target.exists():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        with lzma.open(path, "rb") as src, open(tmp, "wb") as out:
            for chunk in iter(lambda: src.read(1 << 20), b""):
                out.write(chunk)
    except lzma.LZMAError as exc:
        tmp.unlink(missing_ok=True)
        raise ArtifactError(f"{path} is not valid xz data ({exc})") from None
    os.replace(tmp, target)
    return target


#: xz's smallest output (what ships: files under 50 MB), at minutes for a large blueprint.
SHIP_PRESET = 9 | lzma.PRESET_EXTREME


def compress(path: str | Path, target: str | Path | None = None, preset: int = SHIP_PRESET) -> Path:
    """Write an xz copy of ``path`` to ``target`` (default ``path`` + ``.xz``), atomically;
    returns ``target``.  ``preset``: xz's (0-9, optionally ``| lzma.PRESET_EXTREME``); any
    preset reads back the same way."""
    path = Path(path)
    target = Path(target) if target is not None else path.with_name(path.name + ".xz")
    tmp = target.with_name(target.name + ".tmp")
    with open(path, "rb") as src, lzma.open(tmp, "wb", preset=preset) as out:
        for chunk in iter(lambda: src.read(1 << 20), b""):
            out.write(chunk)
    os.replace(tmp, target)
    return target
