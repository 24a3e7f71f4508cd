"""The verl side of the hand-off: read a batch from guigym's trajectory buffer into
verl-shaped `AgentLoopOutput`s (the field names of verl's agent loop output), keeping the
token ids as sampled (never re-applying a chat template). Standard library only.

    python3 integrations/verl_reader.py http://127.0.0.1:PORT [batch size]
"""

import json
import sys
import urllib.request
from dataclasses import dataclass, field
from typing import Optional


@dataclass
class AgentLoopOutput:
    prompt_ids: list
    response_ids: list
    response_mask: list
    reward_score: float
    num_turns: int
    response_logprobs: Optional[list] = None
    multi_modal_data: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)


def main():
    url, size = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8
    with urllib.request.urlopen(f"{url}/v1/batch?size={size}&format=verl", timeout=30) as r:
        batch = json.load(r)
    keep = set(AgentLoopOutput.__dataclass_fields__)
    outs = [AgentLoopOutput(**{k: v for k, v in s.items() if k in keep}) for s in batch["samples"]]
    for o in outs:
        assert len(o.response_mask) == len(o.response_ids), "one mask value per response token"
        assert set(o.response_mask) <= {0, 1}
        assert o.num_turns >= 1
    print(json.dumps({"outputs": len(outs), "response_tokens": sum(len(o.response_ids) for o in outs), "model_tokens": sum(sum(o.response_mask) for o in outs)}))


if __name__ == "__main__":
    main()
