"""The slime side of the hand-off: lease a batch from guigym's trajectory buffer, check every
sample against the fields and types of slime's `Sample` (slime/utils/types.py), fetch its
images, acknowledge the batch, and announce a new weight version. Standard library only.

    python3 integrations/slime_reader.py http://127.0.0.1:PORT [batch size]
"""

import json
import os
import sys
import urllib.request

# slime's `Sample` fields this hand-off fills, with their types in slime.
SLIME_FIELDS = {
    "group_index": int,
    "index": int,
    "prompt": str,
    "tokens": list,
    "response": str,
    "response_length": int,
    "reward": float,
    "loss_mask": list,
    "weight_versions": list,
    "remove_sample": bool,
    "status": str,
    "session_id": str,
    "multimodal_inputs": dict,
    "metadata": dict,
}
STATUSES = {"pending", "completed", "truncated", "aborted", "failed"}


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


def check(s):
    for name, kind in SLIME_FIELDS.items():
        assert name in s, f"missing {name}"
        value = s[name]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) if kind is float else isinstance(value, kind)
        assert ok and not (kind is int and isinstance(value, bool)), f"{name} is {type(value).__name__}, slime wants {kind.__name__}"
    assert all(isinstance(t, int) for t in s["tokens"])
    assert 0 < s["response_length"] <= len(s["tokens"])
    assert len(s["loss_mask"]) == s["response_length"], "loss mask covers the response"
    assert set(s["loss_mask"]) <= {0, 1} and any(s["loss_mask"]), "every sample trains on some tokens"
    assert all(isinstance(v, str) for v in s["weight_versions"])
    assert s["status"] in STATUSES
    lp = s.get("rollout_log_probs")
    if lp is not None:
        assert len(lp) == s["response_length"] and all(isinstance(x, float) and x <= 0 for x in lp)


def main():
    url, size = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8
    batch = json.loads(fetch(url, f"/v1/batch?size={size}&format=slime"))
    for s in batch["samples"]:
        check(s)
    # The samples of one group share its group_index, and a batch holds whole groups.
    groups = {}
    for s in batch["samples"]:
        groups.setdefault(s["group_index"], []).append(s)
    for g in batch["groups"]:
        assert len(groups[g["group_index"]]) == g["samples"], "a batch holds whole groups"
    images = 0
    for s in batch["samples"]:
        for ref in s["multimodal_inputs"]["images"]:
            png = fetch(url, "/v1/" + ref.removesuffix(".png"))
            assert png[1:4] == b"PNG"
            images += 1
    ack = json.loads(fetch(url, f"/v1/batch/{batch['batch_id']}/ack", {}, "POST"))
    version = json.loads(fetch(url, "/v1/weights", {"version": batch["weight_version"] + 1}))
    print(json.dumps({
        "samples": len(batch["samples"]),
        "groups": len(groups),
        "images": images,
        "consumed": ack["consumed"],
        "tokens": sum(len(s["tokens"]) for s in batch["samples"]),
        "trained_tokens": sum(sum(s["loss_mask"]) for s in batch["samples"]),
        "weight_version": version["weight_version"],
    }))


if __name__ == "__main__":
    main()
