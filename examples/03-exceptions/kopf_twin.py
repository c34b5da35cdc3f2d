# The Python Kopf operator that example.ts ports: same handler ids, same behaviour.
import kopf


class MyException(Exception):
    pass


@kopf.on.create('kopfexamples')
def instant_failure_with_only_a_message(**_):
    raise kopf.PermanentError("Fail once and for all.")


@kopf.on.create('kopfexamples')
def eventual_success_with_a_few_messages(retry, **_):
    if retry < 3:
        raise kopf.TemporaryError("Expected recoverable error.", delay=1.0)


@kopf.on.create('kopfexamples', retries=3, backoff=1.0)
def eventual_failure_with_tracebacks(**_):
    raise MyException("An error that is supposed to be recoverable.")


@kopf.on.create('kopfexamples', errors=kopf.ErrorsMode.PERMANENT, backoff=1.0)
def instant_failure_with_traceback(**_):
    raise MyException("An error that is supposed to be recoverable.")
