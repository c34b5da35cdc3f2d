# The Python Kopf side of the handover tests: the same handler ids as handover.ts beside it,
# so that either operator can take over objects the other one has handled.
import kopf


@kopf.on.startup()
def configure(settings, **_):
    settings.posting.enabled = False


@kopf.on.create('kopfexamples')
def create_fn(**_):
    return {'message': 'created'}


@kopf.on.update('kopfexamples')
def update_fn(old, new, diff, **_):
    return {'message': 'updated'}


@kopf.on.resume('kopfexamples')
def resume_fn(**_):
    pass


@kopf.on.delete('kopfexamples')
def delete_fn(**_):
    pass
