import assert from 'node:assert/strict';
import { ApiError, type KubeClient } from '../../runtime/kube/index.ts';
import { resourcePath } from '../../runtime/structs/resources.ts';
import { testExample } from '../../test/e2e/rules.ts';
import { KopfExample } from '../kopfexample.ts';

const OBJECTS = resourcePath(KopfExample, { namespace: 'default' });

interface SendOptions {
  dryRun?: boolean;
  merge?: boolean;
}

/** Sends a request once (a refusal is the answer looked at, not an error to retry); the object or the refusal. */
async function send(client: KubeClient, method: string, path: string, body: unknown, options: SendOptions = {}) {
  try {
    return await client.request<KopfExample>(method, path, {
      body, retries: 0, query: options.dryRun ? { dryRun: 'All' } : {},
      contentType: options.merge ? 'application/merge-patch+json' : undefined,
    });
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

function object(name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}): KopfExample {
  return { apiVersion: 'kopf.dev/v1', kind: 'KopfExample', metadata: { name, namespace: 'default', labels }, spec };
}

testExample(import.meta.dirname, {
  startupStopWords: ['Reconfiguring the mutating webhook auto.kopf.dev.'],
  afterCreation: async ({ cluster }) => {
    const client = cluster.client;
    // The API server reads the webhook configurations through a cache: wait until it calls them.
    const deadline = Date.now() + 60_000;
    let lazy: KopfExample | ApiError;
    do {
      lazy = await send(client, 'POST', OBJECTS, object('lazy', { field: 'not-allowed' }), { dryRun: true });
      if (lazy instanceof ApiError && lazy.status === 555) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } while (Date.now() < deadline);
    assert.ok(lazy instanceof ApiError, 'validate2 refuses');
    assert.equal(lazy.status, 555);
    assert.match(lazy.message, /"validate2\.spec\.field\.auto\.kopf\.dev" denied the request: I'm too lazy anyway\./);

    const labelled = object('wrong', { field: 'wrong' }, { somelabel: 'somevalue' });
    const dry = await send(client, 'POST', OBJECTS, labelled, { dryRun: true });
    assert.ok(!(dry instanceof ApiError), `a dry run of a wrong field is admitted: ${String(dry)}`);
    assert.equal(dry.spec?.injected, 123, 'mutate1 injects a field into labelled objects');

    const wrong = await send(client, 'POST', OBJECTS, object('wrong', { field: 'wrong' }));
    assert.ok(wrong instanceof ApiError);
    assert.match(wrong.message, /denied the request: Meh! I don't like it\. Change the field\./);
    assert.equal(wrong.status, 500);

    const unlabelled = await send(client, 'POST', OBJECTS, object('unlabelled', { field: 'fine' }), { dryRun: true });
    assert.ok(!(unlabelled instanceof ApiError));
    assert.equal(unlabelled.spec?.injected, undefined, 'mutate1 leaves unlabelled objects alone');

    const path = `${OBJECTS}/kopf-example-1/status`;
    const status = await send(client, 'PATCH', path, { status: { field: 'other' } }, { merge: true });
    assert.ok(status instanceof ApiError);
    assert.match(status.message, /denied the request: status\.field MUST be equal to spec\.field!/);
  },
  check: ({ output }) => {
    // Admission handlers run for every request: the rules do not count them ("Webhook", not "Handler").
    for (const id of ['authhook', 'validate1', 'validate_subresources', 'mutate1']) {
      assert.match(output, new RegExp(`Webhook '${id}' succeeded\\.`));
    }
    assert.match(output, /Webhook 'validate2\/spec\.field' failed permanently: I'm too lazy anyway\. Go away!/);
  },
});
