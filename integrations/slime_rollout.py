"""A slime custom rollout function backed by guigym's trajectory buffer.

slime calls `generate_rollout(args, rollout_id, data_source, evaluation=False)` once per
rollout step and trains on what it returns: a list of groups, each the samples of one prompt's
attempts (GRPO normalizes rewards inside a group). Here the rollouts are played by guigym
(`guigym train` with `buffer:` posts each finished group to `guigym buffer serve`), and this
function:

1. announces the trainer's weight version (the rollout id) to the buffer, so older samples
   beyond the buffer's staleness bound are dropped and new ones are dated by it;
2. leases whole groups until it has `args.rollout_batch_size` of them, converts each sample to
   slime's `Sample` (the real class when slime is installed, else a dataclass with the same
   fields and types, written from slime/utils/types.py), and acknowledges each batch once it
   is converted (a crash before that returns the batch to the buffer).

Point slime at it with `--rollout-function-path slime_rollout.generate_rollout` and set
`GUIGYM_BUFFER_URL` (or `args.guigym_buffer_url`). Standard library only.
"""

import json
import os
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Optional

try:  # The real class when slime is installed.
    from slime.utils.types import Sample  # type: ignore
except ImportError:  # The same fields, for machines without slime (and CI).

    @dataclass
    class Sample:  # noqa: D101 - mirrors slime.utils.types.Sample
        group_index: Optional[int] = None
        index: Optional[int] = None
        prompt: Any = ""
        tokens: list = field(default_factory=list)
        multimodal_inputs: Optional[dict] = None
        multimodal_train_inputs: Optional[dict] = None
        response: str = ""
        response_length: int = 0
        label: Optional[str] = None
        reward: Any = None
        loss_mask: Optional[list] = None
        weight_versions: list = field(default_factory=list)
        rollout_log_probs: Optional[list] = None
        remove_sample: bool = False
        status: str = "pending"
        metadata: dict = field(default_factory=dict)
        train_metadata: Optional[dict] = None
        session_id: Optional[str] = None


def _headers():
    """JSON, and the trainers' credential when the buffer has one (GUIGYM_BUFFER_TRAINER_TOKEN)."""
    headers = {"content-type": "application/json"}
    if os.environ.get("GUIGYM_BUFFER_TRAINER_TOKEN"):
        headers["authorization"] = "Bearer " + os.environ["GUIGYM_BUFFER_TRAINER_TOKEN"]
    return headers


def _call(url, path, body=None, method=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method, headers=_headers())
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def _to_sample(d, group_index, index):
    s = Sample()
    for name, value in d.items():
        if hasattr(s, name) or name in getattr(Sample, "__dataclass_fields__", {}):
            setattr(s, name, value)
    s.group_index, s.index = group_index, index
    status_enum = getattr(Sample, "Status", None)
    if status_enum is not None:  # slime's Status enum
        s.status = status_enum(d["status"])
    return s


def generate_rollout(args, rollout_id, data_source, evaluation=False):
    """Whole groups from guigym's buffer, as slime `Sample`s: list[list[Sample]]."""
    if evaluation:
        raise NotImplementedError("evaluate with `guigym eval` (the same rollout path): the buffer holds training groups only")
    url = (getattr(args, "guigym_buffer_url", None) or os.environ.get("GUIGYM_BUFFER_URL", "")).rstrip("/")
    if not url:
        raise ValueError("set GUIGYM_BUFFER_URL or args.guigym_buffer_url to a `guigym buffer serve` address")
    want = int(getattr(args, "rollout_batch_size", 1))
    per_group = int(getattr(args, "n_samples_per_prompt", 1))
    wait_s = float(getattr(args, "guigym_wait_s", 600))
    _call(url, "/v1/weights", {"version": int(rollout_id)})
    groups, deadline, index = [], time.time() + wait_s, 0
    while len(groups) < want:
        batch = _call(url, f"/v1/batch?size={max(1, (want - len(groups)) * per_group)}&format=slime")
        if not batch["batch_id"]:
            if time.time() > deadline:
                raise TimeoutError(f"the buffer at {url} had {len(groups)} of {want} groups after {wait_s:.0f} s")
            time.sleep(1.0)
            continue
        by_group = {}
        for d in batch["samples"]:
            by_group.setdefault(d["group_index"], []).append(d)
        for g in batch["groups"]:
            samples = []
            for d in by_group[g["group_index"]]:
                samples.append(_to_sample(d, len(groups), index))
                index += 1
            groups.append(samples)
        _call(url, f"/v1/batch/{batch['batch_id']}/ack", {}, "POST")
    return groups
