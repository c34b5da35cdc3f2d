/**
 * The reconcile benchmark's operator on this runtime: every KopfExample owns one ConfigMap of its
 * own name (a controller owner reference), kept by a reconciler that creates the child unless it
 * exists; a change of a ConfigMap reaches its owner through `owns`. No Kubernetes events.
 * controller-runtime/main.go is the same reconciler for controller-runtime, which reads the child from
 * the cache of its informers instead; this runtime has no cache of related objects, and a read before
 * the create would be one more request per run.
 *
 * It counts its reconciles and prints the count on SIGUSR2 ("Reconciles: N."), so that the
 * benchmark can divide the CPU time of a phase by the reconciles in it.
 */
import { adopt, AlreadyExistsError, builtins, on } from 'kopf';
import { KopfExample } from '../../examples/kopfexample.ts';

let reconciles = 0;
process.on('SIGUSR2', () => process.stdout.write(`Reconciles: ${reconciles}.\n`));

on.startup(function configure({ settings, logger }) {
  settings.posting.enabled = false;
  logger.info('Configured for the reconcile benchmark.');
});

on.reconcile(KopfExample, async function keep_child({ body, name, spec, client }) {
  reconciles++;
  if (body.metadata?.deletionTimestamp) return;
  // Created unless it exists: one request either way, and the API server, not a cache, says which.
  const child: builtins.ConfigMap = { metadata: { name }, data: { field: spec.field ?? '' } };
  try {
    await client.create(builtins.ConfigMaps, adopt(child, body));
  } catch (error) {
    if (!(error instanceof AlreadyExistsError)) throw error;
  }
}, { owns: [builtins.ConfigMaps] });
