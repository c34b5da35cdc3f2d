# The failover benchmark's replica for Python Kopf 1.44: the same handler as operator.ts.
import os

import kopf

BY = os.environ.get('PEER_NAME', 'unnamed')


@kopf.on.startup()
def configure(settings, **_):
    settings.posting.enabled = False
    if os.environ.get('PEERING_LIFETIME'):
        settings.peering.lifetime = int(os.environ['PEERING_LIFETIME'])


@kopf.on.create('kopfexamples')
def create_fn(**_):
    return {'by': BY}
