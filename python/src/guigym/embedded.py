"""The embedded default: a `guigym serve` on a free loopback port, started on demand and
stopped at exit, for clients that are given no URL."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import threading
from typing import Optional

_lock = threading.Lock()
_server: Optional["EmbeddedServer"] = None


def binary() -> str:
    """The guigym binary: `GUIGYM_BIN`, else `guigym` on PATH."""
    path = os.environ.get("GUIGYM_BIN") or shutil.which("guigym")
    if not path:
        raise FileNotFoundError("no guigym binary: put `guigym` on PATH or set GUIGYM_BIN (cargo build --release -p guigym)")
    return path


class EmbeddedServer:
    """A `guigym serve` process on loopback, open (no credentials: nobody else can reach it)."""

    def __init__(self, capacity: int = 256) -> None:
        # The server exits when its stdin closes: when this process ends, however it ends.
        self.process = subprocess.Popen(
            [binary(), "serve", "--port", "0", "--capacity", str(capacity), "--exit-with-stdin"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.stop()
            raise RuntimeError(f"guigym serve did not start: {line!r}")
        self.url = line[len("listening on ") :]
        atexit.register(self.stop)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()


def shared() -> EmbeddedServer:
    """The process's one embedded server, started the first time it is needed."""
    global _server
    with _lock:
        if _server is None or _server.process.poll() is not None:
            _server = EmbeddedServer()
        return _server
