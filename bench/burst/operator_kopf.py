# The burst benchmark's operator on Python Kopf: the same handlers as operator.ts beside it.
import kopf


@kopf.on.startup()
def configure(settings, **_):
    settings.posting.enabled = False


@kopf.on.create('kopfexamples')
def create_fn(**_):
    return {'message': 'hello world'}


@kopf.on.delete('kopfexamples')
def delete_fn(**_):
    pass
