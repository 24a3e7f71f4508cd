"""Runs the smoke suite with a policy written in Python and prints the success rate.

The policy here is a placeholder to swap for your model: it opens the app the instruction
names, and declares a task it cannot start impossible (a constant baseline solves the
impossible ones). Without GUIGYM_URL the client starts
the embedded default (`guigym serve` on loopback).

    python python/examples/run_suite.py [SUITE]
"""

import sys

from guigym import Client


def policy(instruction: str, observation) -> dict:
    """A placeholder policy: open the first app named in the instruction, then stop."""
    if observation.app is None:
        for node in observation.ui_tree:
            if node.id.startswith("app:") and node.id[4:] in instruction:
                return {"action": "click", "element": node.id}
    return {"action": "terminate", "status": "infeasible"}


def main() -> None:
    suite = sys.argv[1] if len(sys.argv) > 1 else "smoke"
    with Client() as client:
        tasks = client.tasks(suite)
        solved = 0
        with client.lease() as lease:
            for task in tasks:
                observation = lease.reset(task.id)
                for _ in range(task.step_budget):
                    outcome = lease.step(policy(task.instruction, observation))
                    if outcome.done:
                        break
                    observation = lease.observe()
                solved += lease.evaluate().success
        print(f"{suite}: {solved} of {len(tasks)} tasks solved ({100.0 * solved / len(tasks):.1f} %)")


if __name__ == "__main__":
    main()
