# The Python Kopf operator that example.ts ports: Kopf's 13-hooks, its login handler passing on
# the kubeconfig's credentials (kopf.login_with_kubeconfig) instead of pykube's, which is not installed.
import asyncio
import dataclasses
import datetime
import random

import kopf

LOCK: asyncio.Lock
STOPPERS = {}  # [namespace][name]


@kopf.on.startup()
async def startup_fn_simple(logger, **_):
    logger.info("Initialising the task-lock...")
    global LOCK
    LOCK = asyncio.Lock()


@kopf.on.startup()
async def startup_fn_retried(retry, logger, **_):
    if retry < 3:
        raise kopf.TemporaryError(f"Going to succeed in {3-retry}s", delay=1)
    else:
        logger.info("Starting retried...")


@kopf.on.cleanup()
async def cleanup_fn(logger, **_):
    logger.info("Cleaning up...")
    for namespace in STOPPERS.keys():
        for name, flag in STOPPERS[namespace].items():
            flag.set()
    logger.info("All pod-tasks are requested to stop...")


@kopf.on.login(errors=kopf.ErrorsMode.PERMANENT)
async def login_fn(**kwargs):
    print('Logging in in 2s...')
    await asyncio.sleep(2.0)
    info = kopf.login_with_kubeconfig(**kwargs)
    expiration = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=30)
    return dataclasses.replace(info, expiration=expiration)


@kopf.on.probe()
async def tasks_count(**_):
    return sum(len(flags) for flags in STOPPERS.values())


@kopf.on.probe()
async def monitored_objects(**_):
    return {namespace: sorted(name for name in STOPPERS[namespace]) for namespace in STOPPERS}


@kopf.on.event('pods')
async def pod_task(namespace, name, logger, **_):
    async with LOCK:
        if namespace not in STOPPERS or name not in STOPPERS[namespace]:
            flag = asyncio.Event()
            STOPPERS.setdefault(namespace, {}).setdefault(name, flag)
            asyncio.create_task(_task_fn(logger, shouldstop=flag))


async def _task_fn(logger, shouldstop):
    while not shouldstop.is_set():
        await asyncio.sleep(random.randint(1, 10))
        logger.info("Served by the background task.")
    logger.info("Serving is finished by request.")
