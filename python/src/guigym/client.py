"""Clients of guigym's HTTP API, sync and async.

A client talks to the manager (task listing, leases) with the clients' token; a lease talks to
its worker's data URL with nothing but the lease id, as the server expects. A lease keeps
itself alive with heartbeats in the background and is given back when its `with` block ends.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import threading
from typing import Any, Dict, List, Optional, Union

import httpx

from . import embedded
from .types import Action, GuigymError, Observation, StepOutcome, TaskInfo, Verdict

#: The default instance: the simulated phone at its native size.
DEFAULT_SPEC: Dict[str, Any] = {"backend": "sim"}
Task = Union[str, Dict[str, Any]]


def _raise_for(r: httpx.Response) -> Any:
    if r.status_code >= 400:
        try:
            err = r.json()["error"]
            code, message = err.get("code", "http"), err.get("message", r.text)
        except Exception:  # not the server's error shape
            code, message = "http", r.text[:300]
        raise GuigymError(r.status_code, code, message)
    return r.json()


def _action(action: Action) -> Dict[str, Any]:
    if isinstance(action, str):
        try:
            action = json.loads(action)
        except json.JSONDecodeError as e:
            raise ValueError(f"the action is not JSON: {e}") from None
    if not isinstance(action, dict):
        raise ValueError("an action is a dict like {'action': 'click', 'element': 'save'} or its JSON")
    return action


def _task_field(task: Task) -> Dict[str, Any]:
    """A task in a reset request: its id, or its full spec."""
    return {"task_id": task} if isinstance(task, str) else {"task": task}


def _resolve(url: Optional[str], token: Optional[str]) -> tuple:
    if url is None:
        url = os.environ.get("GUIGYM_URL") or embedded.shared().url
    return url.rstrip("/"), token if token is not None else os.environ.get("GUIGYM_TOKEN")


class Client:
    """A synchronous client. Without a URL (and without `GUIGYM_URL`), it starts the embedded
    default: `guigym serve` on a free loopback port, stopped at exit."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, timeout: float = 120.0) -> None:
        self.url, token = _resolve(url, token)
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self._manager = httpx.Client(base_url=self.url, headers=headers, timeout=timeout)
        self._data = httpx.Client(timeout=timeout)

    def close(self) -> None:
        self._manager.close()
        self._data.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def suites(self) -> List[Dict[str, Any]]:
        return _raise_for(self._manager.get("/v1/suites"))["suites"]

    def tasks(self, suite: str) -> List[TaskInfo]:
        return [TaskInfo.from_json(t) for t in _raise_for(self._manager.get("/v1/tasks", params={"suite": suite}))["tasks"]]

    def task(self, task_id: str) -> TaskInfo:
        return TaskInfo.from_json(_raise_for(self._manager.get("/v1/tasks", params={"id": task_id}))["tasks"][0])

    def lease(self, spec: Optional[Dict[str, Any]] = None, ttl_ms: int = 60_000) -> "Lease":
        """One instance of `spec` (the simulated phone by default), held until released."""
        body = {"spec": spec or DEFAULT_SPEC, "count": 1, "ttl_ms": ttl_ms}
        grant = _raise_for(self._manager.post("/v1/leases", json=body))["leases"][0]
        return Lease(self, grant)


class Lease:
    """One leased instance: reset, observe, step, evaluate; heartbeats in a background thread."""

    def __init__(self, client: Client, grant: Dict[str, Any]) -> None:
        self._client = client
        self.id: str = grant["lease_id"]
        self.instance: int = grant["instance_id"]
        self._data_url = grant["data_url"].rstrip("/")
        self._requests = itertools.count()
        self._stop = threading.Event()
        every = max(grant.get("ttl_ms", 60_000) / 3000.0, 0.05)
        self._heartbeat = threading.Thread(target=self._beat, args=(every,), daemon=True)
        self._heartbeat.start()

    def _beat(self, every: float) -> None:
        while not self._stop.wait(every):
            try:
                r = self._client._manager.post(f"/v1/leases/{self.id}/heartbeat")
                if r.status_code in (404, 410):
                    return
            except httpx.HTTPError:
                pass  # the next beat tries again; the TTL decides

    def _op(self, op: str, body: Dict[str, Any]) -> Any:
        body = {"lease": self.id, **body}
        return _raise_for(self._client._data.post(f"{self._data_url}/v1/instances/{self.instance}/{op}", json=body))

    def reset(self, task: Task) -> Observation:
        """Resets to a task: its id (as `tasks()` lists it) or a full task spec."""
        return Observation.from_json(self._op("reset", _task_field(task)))

    def observe(self, screenshot: bool = False) -> Observation:
        return Observation.from_json(self._op("observe", {"screenshot": screenshot}))

    def step(self, action: Action) -> StepOutcome:
        """One action; a retry of the same request is applied once by the server."""
        out = self._op("step", {"request_id": f"py-{next(self._requests)}", "action": _action(action)})
        return StepOutcome(out.get("feedback", ""), bool(out.get("invalid")), bool(out.get("done")))

    def evaluate(self) -> Verdict:
        return Verdict.from_json(self._op("evaluate", {}))

    def release(self) -> None:
        self._stop.set()
        r = self._client._manager.delete(f"/v1/leases/{self.id}")
        if r.status_code not in (200, 404, 410):
            _raise_for(r)

    def __enter__(self) -> "Lease":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class AsyncClient:
    """The asynchronous client: the same operations, awaited; many episodes run at once."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, timeout: float = 120.0) -> None:
        self.url, token = _resolve(url, token)
        headers = {"authorization": f"Bearer {token}"} if token else {}
        limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
        self._manager = httpx.AsyncClient(base_url=self.url, headers=headers, timeout=timeout, limits=limits)
        self._data = httpx.AsyncClient(timeout=timeout, limits=limits)

    async def aclose(self) -> None:
        await self._manager.aclose()
        await self._data.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def suites(self) -> List[Dict[str, Any]]:
        return _raise_for(await self._manager.get("/v1/suites"))["suites"]

    async def tasks(self, suite: str) -> List[TaskInfo]:
        return [TaskInfo.from_json(t) for t in _raise_for(await self._manager.get("/v1/tasks", params={"suite": suite}))["tasks"]]

    async def task(self, task_id: str) -> TaskInfo:
        return TaskInfo.from_json(_raise_for(await self._manager.get("/v1/tasks", params={"id": task_id}))["tasks"][0])

    async def lease(self, spec: Optional[Dict[str, Any]] = None, ttl_ms: int = 60_000) -> "AsyncLease":
        body = {"spec": spec or DEFAULT_SPEC, "count": 1, "ttl_ms": ttl_ms}
        grant = _raise_for(await self._manager.post("/v1/leases", json=body))["leases"][0]
        return AsyncLease(self, grant)


class AsyncLease:
    """One leased instance, driven with `await`; heartbeats in a background task."""

    def __init__(self, client: AsyncClient, grant: Dict[str, Any]) -> None:
        self._client = client
        self.id: str = grant["lease_id"]
        self.instance: int = grant["instance_id"]
        self._data_url = grant["data_url"].rstrip("/")
        self._requests = itertools.count()
        every = max(grant.get("ttl_ms", 60_000) / 3000.0, 0.05)
        self._heartbeat = asyncio.get_running_loop().create_task(self._beat(every))

    async def _beat(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                r = await self._client._manager.post(f"/v1/leases/{self.id}/heartbeat")
                if r.status_code in (404, 410):
                    return
            except httpx.HTTPError:
                pass

    async def _op(self, op: str, body: Dict[str, Any]) -> Any:
        body = {"lease": self.id, **body}
        return _raise_for(await self._client._data.post(f"{self._data_url}/v1/instances/{self.instance}/{op}", json=body))

    async def reset(self, task: Task) -> Observation:
        return Observation.from_json(await self._op("reset", _task_field(task)))

    async def observe(self, screenshot: bool = False) -> Observation:
        return Observation.from_json(await self._op("observe", {"screenshot": screenshot}))

    async def step(self, action: Action) -> StepOutcome:
        out = await self._op("step", {"request_id": f"py-{next(self._requests)}", "action": _action(action)})
        return StepOutcome(out.get("feedback", ""), bool(out.get("invalid")), bool(out.get("done")))

    async def evaluate(self) -> Verdict:
        return Verdict.from_json(await self._op("evaluate", {}))

    async def release(self) -> None:
        self._heartbeat.cancel()
        r = await self._client._manager.delete(f"/v1/leases/{self.id}")
        if r.status_code not in (200, 404, 410):
            _raise_for(r)

    async def __aenter__(self) -> "AsyncLease":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.release()
