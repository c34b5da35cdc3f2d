# The Python Kopf operator that example.ts ports: same handler ids, same behaviour.
import kopf


@kopf.on.create('kopfexamples')
def create_fn(spec, **_):
    for item in spec.get('items', []):

        @kopf.subhandler(id=item)
        async def create_item_fn(item=item, **_):
            print(f"=== Handling creation for {item}. ===")
