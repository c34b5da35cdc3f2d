# The timers benchmark's operator on Python Kopf: the same handlers as operator.ts beside it.
import kopf


@kopf.on.startup()
def configure(settings, logger, **_):
    settings.posting.enabled = False
    logger.info('Configured for the timers benchmark.')


@kopf.timer('kopfexamples', interval=1)
async def tick(**_):
    pass


@kopf.daemon('kopfexamples')
async def accompany(stopped, **_):
    while not await stopped.wait(1):
        pass
