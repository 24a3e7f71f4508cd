"""guigym for Python: clients of the HTTP API (sync and async, with an embedded default) and,
in `guigym.gym`, Gymnasium environments."""

from .client import AsyncClient, AsyncLease, Client, Lease
from .types import Action, Bounds, Check, GuigymError, Observation, StepOutcome, TaskInfo, UiNode, Verdict

__all__ = [
    "Action",
    "AsyncClient",
    "AsyncLease",
    "Bounds",
    "Check",
    "Client",
    "GuigymError",
    "Lease",
    "Observation",
    "StepOutcome",
    "TaskInfo",
    "UiNode",
    "Verdict",
]
