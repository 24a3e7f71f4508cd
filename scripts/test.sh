#!/usr/bin/env bash
# Runs the whole test suite from a fresh machine: installs what the tests need (idempotent),
# checks formatting and lints, then runs every test of the workspace, both tiers:
#   - the fast tier (`cargo test --workspace`): unit and integration tests that need no
#     browser and run no long end-to-end scenario;
#   - the full tier (tests marked `#[ignore = "full tier: …"]`): Chromium, end-to-end runs with
#     processes killed and restarted, the learner's recipe, benchmark smoke tests.
# `scripts/test.sh --fast` runs the checks and the fast tier only.
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
