#!/usr/bin/env bash
# The README's test command, and exactly what CI runs.
# Builds a fresh virtual environment on every run and installs only what
# pyproject.toml declares (the package and its `test` extra), so nothing
# installed by hand on this machine can make the suite pass. Debian's chromium
# (for the real-browser tests) is the one system package; it is installed with
# apt when missing. Then lints and runs the whole suite inside that environment.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
PYTHON="${PYTHON:-python3}"
VENV="$(mktemp -d "${TMPDIR:-/tmp}/ragrecall-test-venv.XXXXXX")"
trap 'rm -rf "$VENV"' EXIT
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[test]'
export PATH="$VENV/bin:$PATH"
ruff check .
ruff format --check .
# one worker per core; a test module stays on one worker (its servers start once)
python -m pytest -n auto --dist loadfile "$@"
