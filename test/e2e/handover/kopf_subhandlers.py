# The Python Kopf side of the sub-handler handover test: the same ids as subhandlers.ts beside it.
# The item `ts-only` is left to this runtime (it fails here until the runtime takes over).
import kopf


@kopf.on.startup()
def configure(settings, **_):
    settings.posting.enabled = False


def item_handler(item, position):
    def create_item(logger, **_):
        if item == 'ts-only':
            raise kopf.TemporaryError('Left to the runtime.', delay=1)
        logger.info(f'Ran the sub-handler of item #{position}.')
    return create_item


@kopf.on.create('kopfexamples')
def create_items(spec, **_):
    for position, item in enumerate(spec.get('items', [])):
        kopf.register(fn=item_handler(item, position), id=item)
