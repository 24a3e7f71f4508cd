#!/usr/bin/env bash
# Runs the whole test suite from a fresh machine: installs what the tests need (idempotent),
# checks formatting and lints, then runs every test of the workspace, both tiers:
#   - the fast tier (`cargo test --workspace`): unit and integration tests that need no
#     browser and run no long end-to-end scenario;
#   - the full tier (tests marked `#[ignore = "full tier: …"]`): Chromium, end-to-end runs with
#     processes killed and restarted, the learner's recipe, benchmark smoke tests.
#   - the Python package's tests (pytest, against a real `guigym serve`).
# `scripts/test.sh --fast` runs the checks, the fast tier and the Python tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
if [ "${1:-}" = "--fast" ]; then
    cargo test --workspace --locked
else
    cargo test --workspace --locked -- --include-ignored
fi
# The fixture's pinned verdicts are still what OSWorld's own metrics give (the Rust parity
# test holds our metrics to the same file).
for fixture in crates/benchmarks/osworld/tests/parity crates/benchmarks/osworld/tests/parity/*/; do
    [ -f "$fixture/cases.json" ] || continue
    "${XDG_CACHE_HOME:-$HOME/.cache}/guigym/osworld-venv/bin/python" scripts/osworld_parity.py --quiet \
        --cases "$fixture/cases.json" --check "$fixture/expected.json"
done
# The Python package against the binary the tests just built.
cargo build --locked -p guigym
GUIGYM_BIN="$PWD/target/debug/guigym" "${XDG_CACHE_HOME:-$HOME/.cache}/guigym/venv/bin/python" -m pytest -q python/tests
