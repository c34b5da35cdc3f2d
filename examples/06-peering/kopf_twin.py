# The same operator for Python Kopf 1.44 (Kopf's examples/06-peering).
from typing import Any

import kopf


@kopf.on.create('kopfexamples')
def create_fn(**_: Any) -> None:
    pass
