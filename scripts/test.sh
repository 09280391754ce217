#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine, then lint and test.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then  # Debian's chromium for the real-browser tests
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
python -m pip install -q --disable-pip-version-check -e '.[test]'
ruff check .
ruff format --check .
python -m pytest "$@"
