#!/bin/sh
# ACPC entry point: ./startme.sh DEALER_HOST PORT
#
# Plays our agent in heads-up no-limit hold'em (the ACPC game, reverse blinds) over
# the ACPC protocol.  Runs from any directory and needs no network: the code is the
# folder this script sits in (an entry made by deploy/package.sh) or its parent (a
# checkout's deploy/), the interpreter its .venv if there is one, else python3.
# Extra agent options may be given after PORT or in ACPC_AGENT_ARGS.
set -eu
if [ "$#" -lt 2 ]; then
    echo "usage: startme.sh DEALER_HOST PORT [agent connect options]" >&2
    exit 2
fi
HERE=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
if [ -d "$HERE/agent" ]; then ROOT=$HERE; else ROOT=$(dirname -- "$HERE"); fi
if [ -x "$ROOT/.venv/bin/python" ]; then PYTHON=$ROOT/.venv/bin/python; else PYTHON=python3; fi
HOST=$1
PORT=$2
shift 2
# Everything the agent caches (evaluator tables, numba kernels) stays inside the entry.
export ACPC_CACHE_DIR="${ACPC_CACHE_DIR:-$ROOT/.cache/acpc-agent}"
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$ROOT/.cache/numba}"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
# shellcheck disable=SC2086 # ACPC_AGENT_ARGS is a list of options
exec "$PYTHON" -m agent.cli connect "$HOST" "$PORT" --game holdem.nolimit.2p ${ACPC_AGENT_ARGS:-} "$@"
