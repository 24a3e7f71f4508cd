"""The values the API speaks, as typed Python objects."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

#: An action: the canonical action dict (``{"action": "click", "element": "save"}``) or its JSON.
Action = Union[Dict[str, Any], str]


class GuigymError(Exception):
    """An error the server answered with: its HTTP status, code and message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Bounds:
    x: int
    y: int
    w: int
    h: int


@dataclass(frozen=True)
class UiNode:
    """One element of the UI tree."""

    id: str
    role: str
    text: str
    bounds: Bounds
    clickable: bool = False
    scrollable: bool = False
    editable: bool = False
    enabled: bool = True
    raw: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def from_json(v: Dict[str, Any]) -> "UiNode":
        b = v.get("bounds") or {}
        return UiNode(
            id=v.get("id", ""),
            role=v.get("role", ""),
            text=v.get("text", ""),
            bounds=Bounds(int(b.get("x", 0)), int(b.get("y", 0)), int(b.get("w", 0)), int(b.get("h", 0))),
            clickable=bool(v.get("clickable", False)),
            scrollable=bool(v.get("scrollable", False)),
            editable=bool(v.get("editable", False)),
            enabled=bool(v.get("enabled", True)),
            raw=v,
        )


@dataclass(frozen=True)
class Observation:
    """What an instance shows: the UI tree, the screen's name, the last feedback, and the
    screenshot as PNG bytes when one was asked for."""

    step: int
    screen: str
    ui_tree: List[UiNode]
    width: int
    height: int
    app: Optional[str] = None
    feedback: Optional[str] = None
    time: str = ""
    screenshot_png: Optional[bytes] = None

    @staticmethod
    def from_json(v: Dict[str, Any]) -> "Observation":
        shot = v.get("screenshot")
        return Observation(
            step=int(v.get("step", 0)),
            screen=v.get("screen", ""),
            ui_tree=[UiNode.from_json(n) for n in v.get("ui_tree", [])],
            width=int(v.get("width", 0)),
            height=int(v.get("height", 0)),
            app=v.get("app"),
            feedback=v.get("feedback"),
            time=v.get("time", ""),
            screenshot_png=base64.b64decode(shot["png"]) if shot else None,
        )


@dataclass(frozen=True)
class StepOutcome:
    feedback: str
    #: The action could not be applied: the agent's doing, a step with feedback.
    invalid: bool
    #: The episode ended (the agent terminated).
    done: bool


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    detail: str = ""


@dataclass(frozen=True)
class Verdict:
    """The verifier's judgement: success, score, each named check, unexpected side effects."""

    success: bool
    score: float
    progress: float
    checks: List[Check]
    unexpected_side_effects: List[str]

    @staticmethod
    def from_json(v: Dict[str, Any]) -> "Verdict":
        return Verdict(
            success=bool(v.get("success", False)),
            score=float(v.get("score", 0.0)),
            progress=float(v.get("progress", 0.0)),
            checks=[Check(c.get("name", ""), bool(c.get("passed", False)), c.get("detail", "")) for c in v.get("checks", [])],
            unexpected_side_effects=list(v.get("unexpected_side_effects", [])),
        )


@dataclass(frozen=True)
class TaskInfo:
    """A task as the API lists it: never its hidden parameters or walkthrough."""

    id: str
    benchmark: str
    family: str
    apps: List[str]
    instruction: str
    step_budget: int
    difficulty: int = 0
    split: Optional[str] = None

    @staticmethod
    def from_json(v: Dict[str, Any]) -> "TaskInfo":
        return TaskInfo(
            id=v["id"],
            benchmark=v.get("benchmark", "phone"),
            family=v.get("family", ""),
            apps=list(v.get("apps", [])),
            instruction=v.get("instruction", ""),
            step_budget=int(v.get("step_budget", 0)),
            difficulty=int(v.get("difficulty", 0)),
            split=v.get("split"),
        )
