# The Python Kopf operator that example.ts ports: same handler ids, same behaviour.
import kopf


@kopf.on.create('kopfexamples')
def create_fn(body, **_):
    kopf.event(body, type="SomeType", reason="SomeReason", message="Some message")
    kopf.info(body, reason="SomeReason", message="Some message")
    kopf.warn(body, reason="SomeReason", message="Some message")
    try:
        raise RuntimeError("Exception text.")
    except Exception:
        kopf.exception(body, reason="SomeReason", message="Some exception:")
