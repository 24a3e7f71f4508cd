#!/usr/bin/env bash
# Runs the whole test suite from a fresh machine: installs what the tests need (idempotent),
# then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo test --workspace --locked
