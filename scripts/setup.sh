#!/usr/bin/env bash
# Installs what guigym's tests and benchmarks need, idempotently. Today that is only the Rust
# toolchain (checked, not installed: it comes with the machine). Later backends add their
# needs here (Chromium for `web`, Xvfb for `desktop`, Python packages for side-by-side
# benchmarks), each behind a check so a second run does nothing.
set -euo pipefail
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is missing; install Rust stable from https://rustup.rs" >&2
    exit 1
fi
