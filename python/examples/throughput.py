"""Episode throughput from Python beside the Rust client, in one run: the smoke suite's
walkthroughs played through one `guigym serve` (release build) by the sync client (1
episode at a time), the async client (1 and 16 at once) and `guigym eval --manager` (the Rust
client, 1 and 16 at once).

    GUIGYM_BIN=target/release/guigym python python/examples/throughput.py
"""

import asyncio
import json
import subprocess
import tempfile
import time

from guigym import AsyncClient, Client, embedded


def walkthroughs(ids):
    binary = embedded.binary()
    return {i: json.loads(subprocess.run([binary, "tasks", "show", i], capture_output=True, text=True, check=True).stdout)["walkthrough"] for i in ids}


def sync_run(url, walks):
    with Client(url) as c, c.lease() as lease:
        for task_id, walk in walks.items():
            lease.reset(task_id)
            for a in walk:
                lease.step(a)
            lease.evaluate()


async def async_run(url, walks, at_once):
    async with AsyncClient(url) as c:
        queue = list(walks.items())

        async def worker():
            async with await c.lease() as lease:
                while queue:
                    task_id, walk = queue.pop()
                    await lease.reset(task_id)
                    for a in walk:
                        await lease.step(a)
                    await lease.evaluate()

        await asyncio.gather(*(worker() for _ in range(at_once)))


def rust_run(url, parallel):
    with tempfile.TemporaryDirectory() as store:
        subprocess.run([embedded.binary(), "eval", "--suite", "smoke", "--policy", "golden", "--manager", url, "--parallel", str(parallel), "--store", store, "--json"], capture_output=True, check=True)


def main():
    server = embedded.EmbeddedServer(capacity=64)
    with Client(server.url) as c:
        ids = [t.id for t in c.tasks("smoke")]
    walks = walkthroughs(ids)
    steps = sum(len(w) for w in walks.values())
    rows = []
    for name, run in [
        ("python sync, 1 at once", lambda: sync_run(server.url, walks)),
        ("python async, 1 at once", lambda: asyncio.run(async_run(server.url, walks, 1))),
        ("python async, 16 at once", lambda: asyncio.run(async_run(server.url, walks, 16))),
        ("rust client (guigym eval), 1 at once", lambda: rust_run(server.url, 1)),
        ("rust client (guigym eval), 16 at once", lambda: rust_run(server.url, 16)),
    ]:
        started = time.perf_counter()
        run()
        took = time.perf_counter() - started
        rows.append((name, len(ids) / took, steps / took))
    print(f"{len(ids)} episodes, {steps} steps each run")
    for name, eps, sps in rows:
        print(f"  {name:<40} {eps:8.1f} episodes/s {sps:9.0f} steps/s")
    server.stop()


if __name__ == "__main__":
    main()
