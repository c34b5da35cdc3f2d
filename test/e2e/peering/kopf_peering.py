# The Python Kopf side of the peering tests: the same handler ids as peering.ts beside it, each
# saying which operator ran it.
import os

import kopf

BY = os.environ.get('PEER_NAME', 'unnamed')


@kopf.on.startup()
def configure(settings, **_):
    settings.posting.enabled = False


@kopf.on.create('kopfexamples')
def create_fn(**_):
    return {'by': BY}


@kopf.on.update('kopfexamples')
def update_fn(**_):
    return {'by': BY}
