"""Gymnasium: registered ids, the env checker on a phone task and a web task, rewards."""

import json
import os
import shutil

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import guigym.gym  # noqa: F401 - registers the environments
from conftest import TOKEN, walkthrough


def test_every_task_and_suite_is_registered():
    ids = set(gymnasium.registry)
    assert "guigym/smoke" in ids and "guigym/contacts.add.0" in ids
    assert sum(1 for i in ids if i.startswith("guigym/")) >= 2125


def test_the_env_checker_passes_on_a_phone_task(server):
    env = gymnasium.make("guigym/contacts.add.0", url=server.url, token=TOKEN, spec={"width": 360, "height": 800}).unwrapped
    check_env(env, skip_render_check=False)
    env.close()


@pytest.mark.skipif(not shutil.which("chromium"), reason="needs Chromium (scripts/setup.sh installs it)")
def test_the_env_checker_passes_on_a_web_task(server):
    env = gymnasium.make("guigym/miniwob.click-test.0", url=server.url, token=TOKEN).unwrapped
    check_env(env)
    env.close()


def test_the_reward_is_the_verdict_at_the_end(server):
    env = gymnasium.make("guigym/smoke", url=server.url, token=TOKEN, spec={"width": 360, "height": 800})
    obs, info = env.reset(seed=3, options={"task_id": "contacts.delete/0"})
    assert info["task_id"] == "contacts.delete/0" and "Delete" in obs["instruction"]
    assert obs["screenshot"].shape == (800, 360, 3)
    steps = walkthrough("contacts.delete/0")
    for i, action in enumerate(steps):
        obs, reward, terminated, truncated, info = env.step(json.dumps(action) if i % 2 else action)
    assert terminated and not truncated and reward == 1.0 and info["verdict"]["success"]
    assert all(c["passed"] for c in info["verdict"]["checks"])
    # Garbage is an invalid step, and the budget truncates.
    env.reset(options={"task_id": "contacts.delete/0"})
    for _ in range(200):
        obs, reward, terminated, truncated, info = env.step("not an action")
        if truncated:
            break
    assert truncated and not terminated and reward == 0.0 and info["invalid"]
    env.close()
