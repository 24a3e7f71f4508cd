"""The slime side of the hand-off: read a batch from guigym's trajectory buffer into
slime-shaped `Sample`s (the field names of slime's `slime.utils.types.Sample`), check them,
and announce a new weight version. Standard library only.

    python3 integrations/slime_reader.py http://127.0.0.1:PORT [batch size]
"""

import json
import sys
import urllib.request
from dataclasses import dataclass, field
from typing import Optional


@dataclass
class Sample:
    index: int
    group_index: str
    session_id: str
    tokens: list
    response_length: int
    loss_mask: list
    reward: float
    status: str
    rollout_log_probs: Optional[list] = None
    multimodal_inputs: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)


def fetch(url, path, body=None):
    req = urllib.request.Request(url + path, data=None if body is None else json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def main():
    url, size = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8
    batch = fetch(url, f"/v1/batch?size={size}&format=slime")
    keep = set(Sample.__dataclass_fields__)
    samples = [Sample(**{k: v for k, v in s.items() if k in keep}) for s in batch["samples"]]
    for s in samples:
        assert len(s.loss_mask) == s.response_length, "loss mask covers the response"
        assert s.response_length <= len(s.tokens)
        assert any(s.loss_mask), "every sample trains on some tokens"
        if s.rollout_log_probs is not None:
            assert len(s.rollout_log_probs) == s.response_length
    version = fetch(url, "/v1/weights", {"version": batch["weight_version"] + 1})
    print(json.dumps({"samples": len(samples), "tokens": sum(len(s.tokens) for s in samples), "trained_tokens": sum(sum(s.loss_mask) for s in samples), "weight_version": version["weight_version"]}))


if __name__ == "__main__":
    main()
