"""A real `guigym serve` for the tests (the binary GUIGYM_BIN names), with a clients' token."""

import json
import subprocess

import pytest

from guigym import embedded

TOKEN = "python-tests"


class Server:
    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen([embedded.binary(), "serve", "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline().strip()
        assert line.startswith("listening on "), line
        self.url = line[len("listening on ") :]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture(scope="session")
def server():
    s = Server("--token", TOKEN, "--capacity", "64")
    yield s
    s.stop()


def walkthrough(task_id: str) -> list:
    """A task's walkthrough, which the API never shows: read with the binary, as an operator."""
    out = subprocess.run([embedded.binary(), "tasks", "show", task_id], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["walkthrough"]
