"""The async client: many episodes at once, each played to success."""

import asyncio

from conftest import TOKEN, walkthrough
from guigym import AsyncClient


async def reveal(lease, element, tries=6):
    """Scrolls the screen's list until `element` shows, as a player must: a walkthrough names
    what to tap, and a row below the fold is not on the screen until the list moves."""
    for _ in range(tries if element else 0):
        tree = (await lease.observe()).ui_tree
        if any(n.id == element and n.bounds.w > 0 and n.bounds.h > 0 for n in tree):
            return
        lists = [n for n in tree if n.scrollable]
        if not lists:
            return
        await lease.step({"action": "scroll", "element": lists[0].id, "direction": "down"})


def test_sixteen_concurrent_episodes_all_succeed(server):
    async def run():
        async with AsyncClient(server.url, TOKEN) as c:
            tasks = (await c.tasks("smoke"))[:16]
            walks = {t.id: walkthrough(t.id) for t in tasks}

            async def episode(task_id):
                async with await c.lease() as lease:
                    await lease.reset(task_id)
                    for action in walks[task_id]:
                        await reveal(lease, action.get("element"))
                        await lease.step(action)
                    return (await lease.evaluate()).success

            return await asyncio.gather(*(episode(t.id) for t in tasks))

    results = asyncio.run(run())
    assert len(results) == 16 and all(results)
