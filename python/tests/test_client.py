"""The sync client against a real server: listing, leases, the five operations, errors."""

import os

import pytest

from conftest import TOKEN, walkthrough
from guigym import Client, GuigymError


def test_suites_and_tasks_are_listed_without_hidden_fields(server):
    with Client(server.url, TOKEN) as c:
        suites = {s["name"]: s for s in c.suites()}
        assert {"smoke", "all", "miniwob"} <= set(suites)
        assert suites["smoke"]["benchmark"] == "phone" and "sim" in suites["smoke"]["backends"]
        tasks = c.tasks("smoke")
        assert len(tasks) == 85
        t = tasks[0]
        assert t.id and t.instruction and t.step_budget > 0 and t.split in {"train", "test", "test-families", "novel-apps"}
        raw = c._manager.get("/v1/tasks", params={"suite": "smoke"}).json()["tasks"][0]
        assert "params" not in raw and "walkthrough" not in raw
        assert c.task(t.id) == t


def test_a_walkthrough_played_from_python_succeeds_and_by_spec_too(server):
    with Client(server.url, TOKEN) as c:
        with c.lease() as lease:
            obs = lease.reset("contacts.add/0")
            assert obs.ui_tree and obs.screen
            for action in walkthrough("contacts.add/0"):
                out = lease.step(action)
            assert out.done
            v = lease.evaluate()
            assert v.success and v.score == 1.0 and v.checks
            # A full spec resets as well; nothing done is a failure.
            import json, subprocess
            from guigym import embedded

            spec = json.loads(subprocess.run([embedded.binary(), "tasks", "show", "contacts.add/0"], capture_output=True, text=True).stdout)
            lease.reset(spec)
            assert not lease.evaluate().success
            shot = lease.observe(screenshot=True)
            assert shot.screenshot_png[:4] == b"\x89PNG"


def test_bad_input_is_the_servers_error_and_loses_nothing(server):
    with Client(server.url, TOKEN) as c:
        with pytest.raises(GuigymError) as e:
            c.tasks("no-such-suite")
        assert e.value.status == 404 and e.value.code == "unknown_suite"
        with c.lease() as lease:
            with pytest.raises(GuigymError) as e:
                lease.reset("no.such/0")
            assert e.value.status == 400 and "no task" in e.value.message
            lease.reset("contacts.delete/0")
            before = lease.observe()
            with pytest.raises(GuigymError) as e:
                lease.step({"action": "fly"})
            assert e.value.status == 422 and e.value.code == "bad_action"
            with pytest.raises(ValueError):
                lease.step("{not json")
            assert lease.observe() == before, "nothing was lost"
            out = lease.step({"action": "click", "element": "no-such-element"})
            assert out.invalid and out.feedback
    with pytest.raises(GuigymError) as e:
        Client(server.url, "wrong").lease()
    assert e.value.status == 401


def test_without_a_url_the_client_starts_the_embedded_server(monkeypatch):
    monkeypatch.delenv("GUIGYM_URL", raising=False)
    with Client() as c:
        assert c.url.startswith("http://127.0.0.1:")
        with c.lease() as lease:
            lease.reset("messages.send/0")
            assert lease.observe().ui_tree


def test_the_embedded_server_dies_with_its_process_even_when_killed():
    import signal
    import subprocess
    import sys
    import time

    script = "from guigym import Client, embedded; c = Client(); print(embedded.shared().process.pid, flush=True); import time; time.sleep(60)"
    env = {k: v for k, v in os.environ.items() if k != "GUIGYM_URL"}
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    server_pid = int(child.stdout.readline())
    child.send_signal(signal.SIGKILL)
    child.wait()
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            return
        # A zombie is gone as far as the port goes; reap it if it is ours to reap.
        with open(f"/proc/{server_pid}/status") as f:
            if "State:\tZ" in f.read():
                return
        time.sleep(0.1)
    raise AssertionError("the embedded server outlived its killed parent")
