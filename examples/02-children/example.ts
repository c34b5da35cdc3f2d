/**
 * Children: the creation handler makes a Pod from the object's spec, adopts it (the owner
 * reference, a name after the owner's, its namespace and labels) and creates it through the
 * operator's own client; the child's uid goes into the object's status.
 *
 * The Pod is created; whether it runs depends on the cluster (the tests' local control plane has
 * no scheduler, so it never does). Kubernetes' garbage collector deletes it with its owner.
 */
import { adopt, builtins, on, requires } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

// What the handler's own call needs, for `kopf rbac`.
requires(builtins.Pods, ['create']);

on.create(KopfExample, async function create_fn({ spec, client }) {
  // A pod with some spec fields used in its command.
  const pod: builtins.Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    spec: {
      containers: [{
        name: 'the-only-one',
        image: 'busybox',
        command: ['sh', '-x', '-c'],
        args: [`echo "FIELD=$FIELD"\nsleep ${spec.duration ?? 0}\n`],
        env: [{ name: 'FIELD', value: spec.field ?? 'default-value' }],
      }],
    },
  };

  // Make it our child: the namespace, the name, labels, the owner reference.
  adopt(pod);

  // Create it through the operator's API client.
  const created = await client.create(builtins.Pods, pod);

  // The object's status: `status.create_fn.children`.
  return { children: [created.metadata?.uid] };
});
