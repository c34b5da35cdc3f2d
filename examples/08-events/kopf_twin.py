# The Python Kopf operator that example.ts ports: same handler ids, same behaviour.
import kopf


@kopf.on.event('kopfexamples')
def event_fn_with_error(**_):
    raise Exception("Oops!")


@kopf.on.event('kopfexamples')
def normal_event_fn(event, **_):
    print(f"Event received: {event!r}")
