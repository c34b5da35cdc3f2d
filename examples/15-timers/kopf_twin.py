# The Python Kopf operator that example.ts ports: same handler ids, options and messages.
import json

import kopf


@kopf.timer('kopfexamples', idle=5, interval=2)
def every_few_seconds_sync(spec, logger, **_):
    logger.info(f"Ping from a sync timer: field={json.dumps(spec['field'])}")


@kopf.timer('kopfexamples', idle=10, interval=4)
async def every_few_seconds_async(spec, logger, **_):
    logger.info(f"Ping from an async timer: field={json.dumps(spec['field'])}")
