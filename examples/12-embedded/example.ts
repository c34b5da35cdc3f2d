/**
 * An operator embedded in an application: the application starts it with a memo of its own,
 * waits until it is ready, does its work — here, creating and deleting a few objects, which the
 * operator greets and sees off — and stops it gracefully at the end.
 *
 *     KUBECONFIG=… node examples/12-embedded/example.ts
 */
import { EventEmitter, once } from 'node:events';
import { KubeClient, LogConfig, on, operator, resourcePath, type Memo } from 'kopf';
import { KopfExample } from '../kopfexample.ts';

/** What the application puts into the memo: every handler gets (a copy of) it. */
interface AppMemo {
  createTpl: string;
  deleteTpl: string;
  /** Told of each greeting, so that the application knows the operator has done its part. */
  greetings: EventEmitter;
}

function appMemo(memo: Memo): AppMemo {
  return memo as unknown as AppMemo;
}

on.create(KopfExample, function create_fn({ memo, name }) {
  const { createTpl, greetings } = appMemo(memo);
  console.log(createTpl.replace('{name}', name));
  greetings.emit(`created:${name}`);
});

on.delete(KopfExample, function delete_fn({ memo, name }) {
  const { deleteTpl, greetings } = appMemo(memo);
  console.log(deleteTpl.replace('{name}', name));
  greetings.emit(`deleted:${name}`);
});

async function main(steps = 3): Promise<void> {
  // Start the operator and let it initialise.
  console.log('Starting the main app.');
  const greetings = new EventEmitter();
  const memo: AppMemo = { createTpl: 'Hello, {name}!', deleteTpl: 'Good bye, {name}!', greetings };
  const op = operator({ memo: { ...memo }, logs: new LogConfig({ verbosity: 'verbose' }) });
  await op.ready;

  // The operator is active: run the application's activity.
  const client = KubeClient.fromDefault();
  const collection = resourcePath(KopfExample, { namespace: 'default' });
  for (let step = 0; step < steps; step++) {
    console.log(`Do the main app activity here. Step ${step + 1}/${steps}.`);
    const name = `kopf-example-${step}`;
    const created = once(greetings, `created:${name}`);
    const body = { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name } };
    await client.request('POST', collection, { body });
    await created;
    const deleted = once(greetings, `deleted:${name}`);
    await client.request('DELETE', resourcePath(KopfExample, { namespace: 'default', name }));
    await deleted;
  }
  client.close();

  // Ask the operator to stop gracefully (it can take a moment).
  console.log('Exiting the main app.');
  await op.stop();
}

await main();
