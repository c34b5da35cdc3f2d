/**
 * The reconcile benchmark's operator on this runtime: every KopfExample owns one ConfigMap of its
 * own name (a controller owner reference), kept by a reconciler that reads the child and creates it
 * when it is missing; a change of a ConfigMap reaches its owner through `owns`. No Kubernetes events.
 * controller-runtime/main.go is the same reconciler for controller-runtime.
 *
 * It counts its reconciles and prints the count on SIGUSR2 ("Reconciles: N."), so that the
 * benchmark can divide the CPU time of a phase by the reconciles in it.
 */
import { adopt, AlreadyExistsError, builtins, NotFoundError, on } from 'kopf';
import { KopfExample } from '../../examples/kopfexample.ts';

let reconciles = 0;
process.on('SIGUSR2', () => process.stdout.write(`Reconciles: ${reconciles}.\n`));

on.startup(function configure({ settings, logger }) {
  settings.posting.enabled = false;
  logger.info('Configured for the reconcile benchmark.');
});

on.reconcile(KopfExample, async function keep_child({ body, name, namespace, spec, client }) {
  reconciles++;
  if (body.metadata?.deletionTimestamp) return;
  try {
    await client.get(builtins.ConfigMaps, name, { namespace });
    return;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  const child: builtins.ConfigMap = { metadata: { name }, data: { field: spec.field ?? '' } };
  try {
    await client.create(builtins.ConfigMaps, adopt(child, body));
  } catch (error) {
    if (!(error instanceof AlreadyExistsError)) throw error;
  }
}, { owns: [builtins.ConfigMaps] });
