"""The verl side of the hand-off: lease a batch from guigym's trajectory buffer, check every
output against the fields and types of verl's `AgentLoopOutput` (verl/experimental/agent_loop),
keep the token ids as sampled (never re-applying a chat template), group by the GRPO uid,
and acknowledge the batch. Standard library only.

    python3 integrations/verl_reader.py http://127.0.0.1:PORT [batch size]
"""

import json
import os
import sys
import urllib.request

# verl's `AgentLoopOutput` fields, with their types in verl.
VERL_FIELDS = {
    "prompt_ids": list,
    "response_ids": list,
    "response_mask": list,
    "multi_modal_data": dict,
    "reward_score": float,
    "num_turns": int,
    "metrics": dict,
    "extra_fields": dict,
}
METRICS = {"generate_sequences": float, "tool_calls": float, "num_preempted": int}


def _headers():
    """JSON, and the trainers' credential when the buffer has one (GUIGYM_BUFFER_TRAINER_TOKEN)."""
    headers = {"content-type": "application/json"}
    if os.environ.get("GUIGYM_BUFFER_TRAINER_TOKEN"):
        headers["authorization"] = "Bearer " + os.environ["GUIGYM_BUFFER_TRAINER_TOKEN"]
    return headers


def fetch(url, path, body=None, method=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method=method, headers=_headers())
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def is_type(value, kind):
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def check(o):
    for name, kind in VERL_FIELDS.items():
        assert name in o and is_type(o[name], kind), f"{name}: verl wants {kind.__name__}"
    for name, kind in METRICS.items():
        assert is_type(o["metrics"][name], kind), f"metrics.{name}"
    assert all(isinstance(t, int) for t in o["prompt_ids"] + o["response_ids"])
    assert len(o["response_mask"]) == len(o["response_ids"]), "one mask value per response token"
    assert set(o["response_mask"]) <= {0, 1}
    lp = o.get("response_logprobs")
    if lp is not None:
        assert len(lp) == len(o["response_ids"])
    assert isinstance(o["multi_modal_data"].get("image", []), list)
    assert isinstance(o["extra_fields"]["uid"], str), "GRPO groups by uid"
    assert o["num_turns"] >= 3


def main():
    url, size = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8
    batch = json.loads(fetch(url, f"/v1/batch?size={size}&format=verl"))
    for o in batch["samples"]:
        check(o)
    uids = {o["extra_fields"]["uid"] for o in batch["samples"]}
    assert len(uids) == len(batch["groups"]), "one uid per group"
    ack = json.loads(fetch(url, f"/v1/batch/{batch['batch_id']}/ack", {}, "POST"))
    print(json.dumps({
        "outputs": len(batch["samples"]),
        "groups": len(uids),
        "consumed": ack["consumed"],
        "response_tokens": sum(len(o["response_ids"]) for o in batch["samples"]),
        "model_tokens": sum(sum(o["response_mask"]) for o in batch["samples"]),
    }))


if __name__ == "__main__":
    main()
