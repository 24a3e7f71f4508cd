"""A verl agent loop that plays guigym tasks.

verl runs one `AgentLoopBase.run(sampling_params, **kwargs)` per row of its dataset (each row
repeated `rollout.n` times, the copies sharing a `uid` that GRPO groups by) and trains on the
`AgentLoopOutput` it returns: one token sequence, the model's tokens marked in `response_mask`.
This loop hands the episode to guigym (`POST /v1/rollouts` on `guigym serve`): guigym leases an
instance, runs the task through the same harness and rollout path as `guigym eval`, has the
model named below play it, judges it, and returns the attempt packed as one sequence with the
sampled token ids and log-probs the model server reported.

Set up:

- the dataset row names the task: `extra_info: {"task_id": "contacts.add/0"}` (or a `task_id`
  column, or a full task spec under `extra_info.task`);
- register the loop: `actor_rollout_ref.rollout.agent.default_agent_loop=guigym` with this
  module importable (or an agent loop config naming `verl_agent_loop.GuigymAgentLoop`);
- environment: `GUIGYM_URL` (a `guigym serve`), `GUIGYM_TOKEN` (its bearer token, if set),
  `GUIGYM_MODEL_URLS` (comma-separated OpenAI-compatible base URLs ending in `/v1`: the
  rollout servers holding the weights being trained, e.g. vLLM started with the policy), and
  optionally `GUIGYM_MODEL_NAME`, `GUIGYM_HARNESS` (a JSON harness config file; its history
  must keep every step in one window, since verl trains one sequence per attempt) and
  `GUIGYM_RETRIES` (re-tries of an attempt lost to infrastructure, default 3).

Infrastructure failures (503 from guigym) are retried and never returned as a zero reward.
With verl installed, the real `AgentLoopBase`, `AgentLoopOutput` and `register` are used;
without it (CI, CPU machines), classes with the same fields and types stand in, written from
verl/experimental/agent_loop/agent_loop.py. Standard library only.
"""

import asyncio
import base64
import json
import os
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Optional

try:  # The real classes when verl is installed.
    from verl.experimental.agent_loop.agent_loop import (  # type: ignore
        AgentLoopBase,
        AgentLoopMetrics,
        AgentLoopOutput,
        register,
    )

    HAVE_VERL = True
except ImportError:
    HAVE_VERL = False
    REGISTRY: dict = {}

    @dataclass
    class AgentLoopMetrics:  # noqa: D101 - mirrors verl's AgentLoopMetrics
        generate_sequences: float = 0.0
        tool_calls: float = 0.0

    @dataclass
    class AgentLoopOutput:  # noqa: D101 - mirrors verl's AgentLoopOutput
        prompt_ids: list
        response_ids: list
        response_mask: list
        response_logprobs: Optional[list] = None
        multi_modal_data: Optional[dict] = None
        reward_score: Optional[float] = None
        num_turns: int = 0
        metrics: AgentLoopMetrics = field(default_factory=AgentLoopMetrics)
        extra_fields: dict = field(default_factory=dict)

    class AgentLoopBase:  # noqa: D101 - mirrors verl's constructor
        def __init__(self, trainer_config=None, server_manager=None, tokenizer=None, processor=None, **kwargs):
            self.config = getattr(trainer_config, "config", None)
            self.server_manager = server_manager
            self.tokenizer = tokenizer
            self.processor = processor

    def register(agent_name):
        def decorator(cls):
            REGISTRY[agent_name] = {"_target_": f"{cls.__module__}.{cls.__qualname__}"}
            return cls

        return decorator


class GuigymError(RuntimeError):
    """An error guigym answered with: its HTTP status, code and message."""

    def __init__(self, status, code, message):
        super().__init__(f"guigym {status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


def _task_of(kwargs):
    extra = kwargs.get("extra_info") or {}
    for where in (extra, kwargs):
        if where.get("task") is not None:
            return where["task"]
        if where.get("task_id") is not None:
            return str(where["task_id"])
    raise ValueError("the dataset row names no guigym task: give extra_info.task_id (or a task_id column)")


def _image(png):
    """A screenshot as verl's processors take it: a PIL image when Pillow is there, else bytes."""
    try:
        import io

        from PIL import Image  # type: ignore

        return Image.open(io.BytesIO(png)).convert("RGB")
    except ImportError:
        return png


@register("guigym")
class GuigymAgentLoop(AgentLoopBase):
    """One guigym attempt per call, played by the model under training."""

    def _settings(self):
        url = os.environ.get("GUIGYM_URL", "").rstrip("/")
        models = [u.strip() for u in os.environ.get("GUIGYM_MODEL_URLS", "").split(",") if u.strip()]
        if not url or not models:
            raise ValueError("set GUIGYM_URL (a `guigym serve`) and GUIGYM_MODEL_URLS (the rollout servers' /v1 URLs)")
        harness = {"history": {"type": "window", "k": 1000, "o": 0}}
        if os.environ.get("GUIGYM_HARNESS"):
            with open(os.environ["GUIGYM_HARNESS"]) as f:
                harness = json.load(f)
        return url, models, harness

    def _post(self, url, body):
        headers = {"content-type": "application/json"}
        if os.environ.get("GUIGYM_TOKEN"):
            headers["authorization"] = "Bearer " + os.environ["GUIGYM_TOKEN"]
        req = urllib.request.Request(url + "/v1/rollouts", data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=float(os.environ.get("GUIGYM_TIMEOUT_S", "3600"))) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            try:
                err = json.load(e)["error"]
            except Exception:  # not guigym's envelope
                err = {"code": "http", "message": str(e)}
            raise GuigymError(e.code, err.get("code"), err.get("message")) from None

    async def run(self, sampling_params: dict, **kwargs) -> AgentLoopOutput:
        url, models, harness = self._settings()
        want_logprobs = bool(sampling_params.get("logprobs", True))
        extra_body = {"return_token_ids": True, "logprobs": want_logprobs}
        if "top_p" in sampling_params:
            extra_body["top_p"] = sampling_params["top_p"]
        model = {
            "base_urls": models,
            "model": os.environ.get("GUIGYM_MODEL_NAME", "default"),
            "temperature": float(sampling_params.get("temperature", 1.0)),
            "extra_body": extra_body,
        }
        if "max_tokens" in sampling_params:
            model["max_tokens"] = int(sampling_params["max_tokens"])
        body = {"task": _task_of(kwargs), "model": model, "harness": harness, "format": "verl"}
        if kwargs.get("uid") is not None:
            body["group_id"] = str(kwargs["uid"])
        retries = int(os.environ.get("GUIGYM_RETRIES", "3"))
        started = time.monotonic()
        for attempt in range(retries + 1):
            try:
                result = await asyncio.to_thread(self._post, url, body)
                break
            except GuigymError as e:
                # Lost to infrastructure: never the agent's failure, so never a zero reward.
                if e.status != 503 or attempt == retries:
                    raise
                await asyncio.sleep(min(2.0**attempt, 30.0))
        (sample,) = result["samples"]  # one window: one sequence
        images = [_image(base64.b64decode(result["images"][ref.split("/")[-1].removesuffix(".png")])) for ref in sample["multi_modal_data"]["image"]]
        extra = dict(sample["extra_fields"])
        extra.update(task_id=result["task_id"], trajectory_id=result["trajectory_id"], success=result["success"], checks=result["verdict"].get("checks"))
        return AgentLoopOutput(
            prompt_ids=sample["prompt_ids"],
            response_ids=sample["response_ids"],
            response_mask=sample["response_mask"],
            response_logprobs=sample["response_logprobs"] if want_logprobs else None,
            multi_modal_data={"image": images} if images else {},
            reward_score=float(result["reward"]),
            num_turns=int(sample["num_turns"]),
            metrics=AgentLoopMetrics(generate_sequences=time.monotonic() - started, tool_calls=0.0),
            extra_fields=extra,
        )
