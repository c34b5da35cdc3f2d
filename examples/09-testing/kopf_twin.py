# The Python Kopf operator that example.ts ports: same handler ids, same behaviour.
import kopf


@kopf.on.create('kopfexamples')
def create_fn(logger, **_):
    logger.info("Something was logged here.")
