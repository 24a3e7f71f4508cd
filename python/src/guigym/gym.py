"""Gymnasium environments over guigym.

``gymnasium.make("guigym/contacts.add.0")`` is one task (a task id with its ``/`` written
``.``, since Gymnasium ids allow no second slash and read ``:`` as a module); ``gymnasium.make("guigym/smoke")`` samples
the tasks of a suite at each reset (``options={"task_id": ...}`` picks one). Importing this
module registers them all (it lists the tasks with the guigym binary).

Observations are a dict: the screenshot as an ``uint8`` array (height, width, 3), the UI tree
as JSON text, the instruction and the last feedback. An action is the canonical action dict
(``{"action": "click", "element": "save"}``) or its JSON; one that is not an action is an
invalid step with feedback, as in every guigym harness. The reward is the verdict's score at
the end of the episode; ``terminated`` when the agent terminates, ``truncated`` at the task's
step budget; ``info["verdict"]`` holds the named checks.
"""

from __future__ import annotations

import io
import json
import subprocess
from typing import Any, Dict, List, Optional, Tuple

import gymnasium
import numpy as np
from gymnasium import spaces

from . import embedded
from .client import Client, Lease
from .types import GuigymError, Observation, StepOutcome, TaskInfo

#: Every character a screen, an instruction or an action may hold (the Basic Multilingual
#: Plane without surrogates), so observations always lie in their space.
CHARSET = "".join(chr(c) for c in list(range(9, 11)) + list(range(32, 0xD800)) + list(range(0xE000, 0x10000)))
MAX_TEXT = 200_000

#: Suites that exist whatever the installation (MiniWoB++ registers when it is installed).
SUITES = ["smoke", "all", "train", "test", "test-families", "novel-apps", "core-train", "core-validation", "core-test"]


def _pixels(obs: Observation) -> np.ndarray:
    """The screenshot as an (height, width, 3) uint8 array."""
    from PIL import Image

    if obs.screenshot_png is None:
        raise ValueError("the observation has no screenshot")
    return np.asarray(Image.open(io.BytesIO(obs.screenshot_png)).convert("RGB"), dtype=np.uint8)


def env_id(task_id: str) -> str:
    """The Gymnasium id of a task id (`contacts.add/0` → `guigym/contacts.add.0`)."""
    return "guigym/" + task_id.replace("/", ".")


class GuigymEnv(gymnasium.Env):
    """One instance, leased for the life of the environment, reset to a task per episode."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 1}

    def __init__(
        self,
        task_id: Optional[str] = None,
        suite: Optional[str] = None,
        url: Optional[str] = None,
        token: Optional[str] = None,
        spec: Optional[Dict[str, Any]] = None,
        render_mode: Optional[str] = None,
    ) -> None:
        if (task_id is None) == (suite is None):
            raise ValueError("give a task_id or a suite")
        self.client = Client(url, token)
        self.spec_ = {"backend": "sim", "width": 1080, "height": 2400, **(spec or {})}
        listed = [self.client.task(task_id)] if task_id else self.client.tasks(suite or "")
        self._infos = {t.id: t for t in listed}
        self.task_ids: List[str] = [t.id for t in listed]
        if not self.task_ids:
            raise ValueError(f"suite {suite!r} has no tasks")
        self.render_mode = render_mode
        # The screenshot's size is the instance's (a MiniWoB++ page has its own viewport):
        # lease now and look once.
        self._lease: Lease = self.client.lease(self.spec_)
        self._lease.reset(self.task_ids[0])
        first = self._lease.observe(screenshot=True)
        h, w = _pixels(first).shape[:2]
        text = spaces.Text(max_length=MAX_TEXT, min_length=0, charset=CHARSET)
        self.observation_space = spaces.Dict(
            {"screenshot": spaces.Box(0, 255, (h, w, 3), np.uint8), "ui_tree": text, "instruction": text, "feedback": text}
        )
        self.action_space = spaces.Text(max_length=2_000, min_length=0, charset=CHARSET)
        self._task: Optional[TaskInfo] = None
        self._steps = 0
        self._last: Optional[np.ndarray] = None
        self._closed = False

    def _info(self, task_id: str) -> TaskInfo:
        if task_id not in self._infos:
            self._infos[task_id] = self.client.task(task_id)
        return self._infos[task_id]

    def _observe(self, obs: Observation, feedback: Optional[str]) -> Dict[str, Any]:
        image = _pixels(obs)
        self._last = image
        tree = json.dumps([n.raw for n in obs.ui_tree], ensure_ascii=False)
        return {
            "screenshot": image,
            "ui_tree": tree[:MAX_TEXT],
            "instruction": self._task.instruction if self._task else "",
            "feedback": (feedback or obs.feedback or "")[:MAX_TEXT],
        }

    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        super().reset(seed=seed)
        task_id = (options or {}).get("task_id") or self.task_ids[int(self.np_random.integers(len(self.task_ids)))]
        self._task = self._info(task_id)
        self._lease.reset(task_id)
        self._steps = 0
        obs = self._lease.observe(screenshot=True)
        return self._observe(obs, None), {"task_id": task_id}

    def step(self, action: Any) -> Tuple[Dict[str, Any], float, bool, bool, Dict[str, Any]]:
        assert self._task is not None, "reset first"
        try:
            out = self._lease.step(action)
        except (ValueError, GuigymError) as e:
            # Not an action (bad JSON, an unknown kind): an invalid step, as in the harness.
            if isinstance(e, GuigymError) and e.status not in (400, 422):
                raise
            out = StepOutcome(f"invalid action: {e}", True, False)
        self._steps += 1
        terminated = out.done
        truncated = not terminated and self._steps >= self._task.step_budget
        info: Dict[str, Any] = {"invalid": out.invalid, "task_id": self._task.id}
        reward = 0.0
        if terminated or truncated:
            verdict = self._lease.evaluate()
            reward = verdict.score
            info["verdict"] = {
                "success": verdict.success,
                "score": verdict.score,
                "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail} for c in verdict.checks],
                "unexpected_side_effects": verdict.unexpected_side_effects,
            }
        obs = self._lease.observe(screenshot=True)
        return self._observe(obs, out.feedback), reward, terminated, truncated, info

    def render(self) -> Optional[np.ndarray]:
        return self._last

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._lease.release()
        except Exception:
            pass
        self.client.close()


def register_envs() -> int:
    """Registers a suite env per suite and a task env per task of the catalogue (and of
    MiniWoB++ when installed); returns how many. Called on import."""
    count = 0
    for suite in SUITES:
        gymnasium.register(id=f"guigym/{suite}", entry_point="guigym.gym:GuigymEnv", kwargs={"suite": suite}, disable_env_checker=True)
        count += 1
    try:
        binary = embedded.binary()
    except FileNotFoundError:
        return count
    for suite in ["all", "miniwob"]:
        out = subprocess.run([binary, "tasks", "list", "--suite", suite, "--json"], capture_output=True, text=True)
        if out.returncode != 0:
            continue
        if suite == "miniwob":
            gymnasium.register(id="guigym/miniwob", entry_point="guigym.gym:GuigymEnv", kwargs={"suite": "miniwob", "spec": {"backend": "web"}}, disable_env_checker=True)
        for t in json.loads(out.stdout):
            spec = {"backend": "web"} if suite == "miniwob" else None
            gymnasium.register(id=env_id(t["id"]), entry_point="guigym.gym:GuigymEnv", kwargs={"task_id": t["id"], "spec": spec}, disable_env_checker=True)
            count += 1
    return count


register_envs()
