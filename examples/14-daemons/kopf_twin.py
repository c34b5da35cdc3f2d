# The Python Kopf operator that example.ts ports: same handler ids, options and messages.
import asyncio
import json
import time

import kopf


@kopf.daemon('kopfexamples', backoff=3)
async def background_sync(spec, stopped, logger, retry, patch, **_):
    if retry < 3:
        patch.status['message'] = f"Failed {retry+1} times."
        raise kopf.TemporaryError("Simulated failure.", delay=1)

    started = time.time()
    while not stopped and time.time() - started <= 30:
        logger.info(f"=> Ping from a sync daemon: field={json.dumps(spec['field'])}, retry={retry}")
        await stopped.wait(5.0)

    patch.status['message'] = "Accompanying is finished."


@kopf.daemon('kopfexamples', backoff=3,
             cancellation_backoff=1.0, cancellation_timeout=0.5,
             annotations={'someannotation': 'somevalue'})
async def background_async(spec, logger, retry, **_):
    if retry < 3:
        raise kopf.TemporaryError("Simulated failure.", delay=1)

    while True:
        logger.info(f"=> Ping from an async daemon: field={json.dumps(spec['field'])}")
        await asyncio.sleep(5.0)
