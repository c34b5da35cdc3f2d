/**
 * A reconciler (`on.reconcile`): the object keeps a Deployment-like set of children equal to its
 * spec — `spec.replicas` ConfigMaps named `<name>-0`, `<name>-1`, …, each holding `spec.field`.
 * Whatever called for the run (the object changed, a child was created, edited or deleted by
 * anyone), the reconciler reads the children as they are and makes them so: it creates the
 * missing ones, deletes the extra ones, and restores the edited ones. It stores nothing on the
 * object but the count it keeps, in the status.
 *
 * This example has no Kopf twin: Python Kopf has no level-triggered reconcilers (see
 * docs/reconcile.md). The children are read with `owned()`, from the runtime's own watch of them
 * (no request to the API server); a change of a child reaches its owner through its controller
 * owner reference (`owns`), and `kopf rbac` grants what keeping the owned children takes (reading,
 * creating, changing and deleting them). The label naming the owner is for people and tools
 * (`kubectl get configmaps -l kopf.dev/set=NAME`).
 */
import { AlreadyExistsError, NotFoundError, adopt, builtins, on } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

/** The label that names a child's owner, for selecting the children by hand. */
const OWNER_LABEL = 'kopf.dev/set';

/**
 * What `owned()` gives is as current as the latest event of the children: a child just created or
 * deleted by an earlier run may not be in (or out) yet. Its event runs the reconciler again; until
 * then, creating it again finds it there, and deleting it again finds it gone.
 */
function already(kind: typeof AlreadyExistsError | typeof NotFoundError) {
  return (error: unknown) => { if (!(error instanceof kind)) throw error; };
}

on.reconcile(KopfExample, async function keep_children(
  { body, name, namespace, spec, status, client, patch, logger, owned },
) {
  const replicas = Math.max(0, Math.trunc(spec.replicas ?? 1));
  const field = spec.field ?? '';
  const wanted = new Set(Array.from({ length: replicas }, (_, index) => `${name}-${index}`));
  // Only the children this object controls: those of an earlier object of the same name are not its.
  const children = owned(builtins.ConfigMaps);

  for (const child of children) {
    const childName = child.metadata?.name ?? '';
    if (!wanted.has(childName)) {
      logger.info(`Deleting the extra child ${childName}.`);
      await client.delete(builtins.ConfigMaps, childName, { namespace }).catch(already(NotFoundError));
    } else if (child.data?.field !== field) {
      logger.info(`Restoring the child ${childName}.`);
      await client.patch(builtins.ConfigMaps, childName, { data: { field } }, { namespace });
    }
  }
  const existing = new Set(children.map((child) => child.metadata?.name));
  for (const childName of wanted) {
    if (existing.has(childName)) continue;
    logger.info(`Creating the child ${childName}.`);
    const child: builtins.ConfigMap = {
      metadata: { name: childName, labels: { [OWNER_LABEL]: name } },
      data: { field },
    };
    await client.create(builtins.ConfigMaps, adopt(child, body)).catch(already(AlreadyExistsError));
  }
  // Written only when it differs: the object's change (the echo of this write) reconciles it again.
  if (status.replicas !== replicas) patch.status.replicas = replicas;
}, { owns: [builtins.ConfigMaps] });
