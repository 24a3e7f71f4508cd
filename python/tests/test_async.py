"""The async client: many episodes at once, each played to success."""

import asyncio

from conftest import TOKEN, walkthrough
from guigym import AsyncClient


def test_sixteen_concurrent_episodes_all_succeed(server):
    async def run():
        async with AsyncClient(server.url, TOKEN) as c:
            tasks = (await c.tasks("smoke"))[:16]
            walks = {t.id: walkthrough(t.id) for t in tasks}

            async def episode(task_id):
                async with await c.lease() as lease:
                    await lease.reset(task_id)
                    for action in walks[task_id]:
                        await lease.step(action)
                    return (await lease.evaluate()).success

            return await asyncio.gather(*(episode(t.id) for t in tasks))

    results = asyncio.run(run())
    assert len(results) == 16 and all(results)
