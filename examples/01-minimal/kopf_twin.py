# The Python Kopf operator that example.ts ports: same handler ids, same behaviour.
# The example's test runs both on the same scenario and holds them to the same rules.
import kopf


@kopf.on.create('kopfexamples')
def create_fn(spec, **_):
    print(f"And here we are! Creating: {dict(spec)}")
    return {'message': 'hello world'}
