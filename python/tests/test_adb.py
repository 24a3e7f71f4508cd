"""`guigym adb-device` driven from Python the way Android agent code drives phones: adbutils
(PyPI) through Debian's adb server, on a private port and home. Taps, typing, keys, a
screenshot and a window dump act on and read the simulated phone; the control API judges it."""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest

from guigym import embedded

adbutils = pytest.importorskip("adbutils")
pytestmark = pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's adb is missing: run scripts/setup.sh")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def adb_server():
    home = tempfile.mkdtemp(prefix="guigym-adbutils-")
    port = free_port()
    env = dict(os.environ, HOME=home)
    subprocess.run(["adb", "-P", str(port), "start-server"], env=env, check=True, capture_output=True)
    yield port
    subprocess.run(["adb", "-P", str(port), "kill-server"], env=env, capture_output=True)
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def device():
    p = subprocess.Popen([embedded.binary(), "adb-device", "--port", "0", "--task", "contacts.add/0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline().strip()
    assert line.startswith("listening on "), line
    control = line[len("listening on ") :]
    devices = json.load(urllib.request.urlopen(f"{control}/v1/devices", timeout=30))["devices"]
    yield control, devices[0]["serial"]
    p.terminate()
    p.wait(timeout=10)


def control(url: str, method: str = "GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=30))


def test_adbutils_drives_the_simulated_phone(adb_server, device):
    url, serial = device
    client = adbutils.AdbClient(host="127.0.0.1", port=adb_server)
    assert "connected" in client.connect(serial, timeout=10)
    d = client.device(serial)
    assert d.shell("getprop sys.boot_completed").strip() == "1"
    image = d.screenshot()
    assert image.size == (1080, 2400)

    # The home screen's Contacts icon, found in the window dump, opens Contacts.
    d.shell("uiautomator dump /sdcard/window_dump.xml")
    xml = d.shell("cat /sdcard/window_dump.xml")
    assert 'resource-id="com.android.launcher3:id/app:Contacts"' in xml
    start = xml.index('resource-id="com.android.launcher3:id/app:Contacts"')
    bounds = xml[xml.index('bounds="[', start) + 9 : xml.index('"', xml.index('bounds="[', start) + 9)]
    (x1, y1), (x2, y2) = [tuple(int(v) for v in pair.split(",")) for pair in bounds.rstrip("]").split("][")]
    d.click((x1 + x2) // 2, (y1 + y2) // 2)
    assert "com.guigym.contacts/" in d.shell("dumpsys window | grep mCurrentFocus")

    d.keyevent("KEYCODE_BACK")
    d.keyevent("KEYCODE_HOME")
    assert "com.android.launcher3/" in d.shell("dumpsys window | grep mCurrentFocus")
    packages = d.shell("pm list packages")
    assert "package:com.guigym.contacts" in packages

    # Nothing was added: the control API judges the task a failure, with the steps taken.
    judged = control(f"{url}/v1/devices/0/evaluate")
    assert judged["task"] == "contacts.add/0" and judged["verdict"]["success"] is False
    assert judged["steps"] >= 3
