# The Python Kopf operator that example.ts ports: same handler ids, same behaviour.
# Kopf's example creates the pod with pykube; here Kopf's own API client does it, so that the twin
# needs nothing but Kopf (its handlers run with the operator's credentials either way).
import kopf
import yaml
from kopf._cogs.clients import api


@kopf.on.create('kopfexamples')
async def create_fn(spec, namespace, logger, **_):

    # Render the pod yaml with some spec fields used in the template.
    doc = yaml.safe_load(f"""
        apiVersion: v1
        kind: Pod
        spec:
          containers:
          - name: the-only-one
            image: busybox
            command: ["sh", "-x", "-c"]
            args:
            - |
              echo "FIELD=$FIELD"
              sleep {spec.get('duration', 0)}
            env:
            - name: FIELD
              value: {spec.get('field', 'default-value')}
    """)

    # Make it our child: assign the namespace, name, labels, owner references, etc.
    kopf.adopt(doc)

    # Actually create an object by requesting the Kubernetes API.
    pod = await api.post(f'/api/v1/namespaces/{namespace}/pods', payload=doc, logger=logger, settings=kopf.OperatorSettings())

    # Update the parent's status.
    return {'children': [pod['metadata']['uid']]}
