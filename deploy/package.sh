#!/bin/sh
# Build a self-contained ACPC entry folder: ./deploy/package.sh OUT
#
# OUT gets the committed source (git archive of HEAD), startme.sh at its top, and a
# virtual environment OUT/.venv with the dependencies installed (this step needs the
# package index; playing does not).  Then one short match warms the caches inside OUT
# (numba kernels, evaluator tables) so the entry starts fast and never writes outside
# itself.  Build it on a machine like the one that will run it (same Python, same CPU
# family): the venv and the numba cache are not portable across those.
set -eu
if [ "$#" -ne 1 ]; then
    echo "usage: deploy/package.sh OUT_DIR" >&2
    exit 2
fi
OUT=$1
SRC=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
if [ -e "$OUT" ]; then
    echo "package.sh: $OUT exists; choose a new folder" >&2
    exit 2
fi
mkdir -p "$OUT"
OUT=$(CDPATH= cd -- "$OUT" && pwd)
git -C "$SRC" archive HEAD | tar -x -C "$OUT"
cp "$OUT/deploy/startme.sh" "$OUT/startme.sh"
chmod 755 "$OUT/startme.sh"
python3 -m venv "$OUT/.venv"
"$OUT/.venv/bin/pip" install -q "$OUT"
# Warm up: a short local match against the call bot, caches written inside OUT.
cd "$OUT"
ACPC_CACHE_DIR="$OUT/.cache/acpc-agent" NUMBA_CACHE_DIR="$OUT/.cache/numba" \
    "$OUT/.venv/bin/python" tests/bench/check_deploy.py --hands 20 --opponent call --startme "$OUT/startme.sh"
echo "package.sh: entry ready in $OUT (run ./startme.sh HOST PORT from anywhere)"
