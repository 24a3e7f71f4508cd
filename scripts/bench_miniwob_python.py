"""The Farama `miniwob` gymnasium environment (Selenium + chromedriver), measured the way
`guigym bench web` measures its own backend: launch, reset p50/p99, click step (with its
observation) p50, and reset+step cycles per second with 1 and N processes.

Run with the venv `scripts/setup.sh` makes; prints JSON on stdout.
"""

import argparse
import json
import multiprocessing as mp
import os
import time

os.environ.setdefault("MINIWOB_CHROME_BINARY", "/usr/bin/chromium")
os.environ.setdefault("MINIWOB_CHROMEDRIVER", "/usr/bin/chromedriver")

import gymnasium  # noqa: E402
import miniwob  # noqa: E402
import numpy as np  # noqa: E402
from miniwob.action import ActionTypes  # noqa: E402

gymnasium.register_envs(miniwob)


def pct(xs, p):
    xs = sorted(xs)
    return xs[round(p / 100 * (len(xs) - 1))] if xs else 0.0


def click(env):
    # The middle of the 160x210 task area, as guigym's side does.
    return env.unwrapped.create_action(ActionTypes.CLICK_COORDS, coords=np.array([80.0, 130.0]))


def measure(task, iterations):
    t = time.perf_counter()
    env = gymnasium.make(f"miniwob/{task}-v1")
    env.reset(seed=0)
    launch = (time.perf_counter() - t) * 1e3
    resets, steps = [], []
    for i in range(iterations):
        t = time.perf_counter()
        env.reset(seed=i + 1)
        resets.append((time.perf_counter() - t) * 1e3)
        t = time.perf_counter()
        env.step(click(env))
        steps.append((time.perf_counter() - t) * 1e3)
    env.close()
    return {
        "launch_ms": launch,
        "reset_p50_ms": pct(resets, 50),
        "reset_p99_ms": pct(resets, 99),
        "step_observe_p50_ms": pct(steps, 50),
    }


def cycles(args):
    task, seconds, seed = args
    env = gymnasium.make(f"miniwob/{task}-v1")
    env.reset(seed=seed)
    n, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        env.reset(seed=seed + n)
        env.step(click(env))
        n += 1
    env.close()
    return n


def throughput(task, procs, seconds):
    # Launch time is left out: each process warms up before its timed loop starts.
    with mp.Pool(procs) as pool:
        counts = pool.map(cycles, [(task, seconds, 1000 * i) for i in range(procs)])
    return sum(counts) / seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default="click-button,click-checkboxes,enter-text,book-flight,email-inbox")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--concurrency", default="1,4")
    a = ap.parse_args()
    out = {"tasks": {}, "throughput": {}}
    names = a.tasks.split(",")
    for task in names:
        out["tasks"][task] = measure(task, a.iterations)
    for c in [int(x) for x in a.concurrency.split(",")]:
        out["throughput"][str(c)] = throughput(names[0], c, a.seconds)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
