/**
 * The example's converters, as the runtime runs them, for thousands of generated objects: a v1
 * object taken down to v1alpha1 and up again is the same v1 object in every field — `paused`
 * and replicas other than 1 and 3 included, which v1alpha1 cannot hold — and a v1alpha1 object
 * changed in a field both versions have comes up with the change.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { OperatorRegistry, type JsonValue } from 'kopf';
import { Conversions } from 'kopf/testing';
import { Gadget } from './generated/index.ts';
import * as v1alpha1 from './generated/example.com/v1alpha1.ts';
import type { Gadget as GadgetObject } from './generated/example.com/v1.ts';
import { gadgetV1alpha1 } from './converters.ts';

const registry = new OperatorRegistry();
registry.on.convert(Gadget, v1alpha1.Gadget, gadgetV1alpha1);
const conversions = new Conversions(registry.conversionHandlers);

const keys = fc.stringMatching(/^[a-z]{1,8}$/);

const metadata = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
  namespace: fc.constant('default'),
  uid: fc.uuid(),
  resourceVersion: fc.integer({ min: 1 }).map(String),
  labels: fc.dictionary(keys, fc.string({ maxLength: 10 }), { maxKeys: 3, noNullPrototype: true }),
}, { requiredKeys: ['name', 'namespace', 'uid'], noNullPrototype: true });

const hubObject: fc.Arbitrary<GadgetObject> = fc.record({
  apiVersion: fc.constant('example.com/v1' as const),
  kind: fc.constant('Gadget' as const),
  metadata,
  spec: fc.record({
    replicas: fc.integer({ min: 0, max: 1000 }),
    color: fc.string({ maxLength: 12 }),
    paused: fc.boolean(),
  }, { requiredKeys: [], noNullPrototype: true }),
  status: fc.dictionary(keys, fc.jsonValue({ maxDepth: 2 }).map(json), { maxKeys: 3, noNullPrototype: true }),
}, { requiredKeys: ['apiVersion', 'kind', 'metadata'], noNullPrototype: true });

const RUNS = 5000;

/** As the API server sends it: JSON text parsed (plain objects, no negative zero). */
function json(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

test('down then up is the identity on the hub\'s fields', () => {
  fc.assert(fc.property(hubObject, (hub) => {
    const spoke = conversions.convert(hub, 'example.com/v1alpha1');
    assert.equal(spoke.apiVersion, 'example.com/v1alpha1');
    assert.deepEqual(conversions.convert(spoke, 'example.com/v1'), hub);
  }), { numRuns: RUNS });
});

test('a change through v1alpha1 to a field both versions have wins; what v1alpha1 lacks stays', () => {
  const colours = fc.string({ maxLength: 12 });
  fc.assert(fc.property(hubObject, colours, fc.constantFrom('small', 'large'), (hub, colour, size) => {
    const spoke = conversions.convert(hub, 'example.com/v1alpha1') as v1alpha1.Gadget;
    const changed = { ...spoke, spec: { ...spoke.spec, colour, size } };
    const back = conversions.convert(changed, 'example.com/v1') as GadgetObject;
    assert.equal(back.spec?.color, colour);
    const sizeKept = size === spoke.spec?.size;
    assert.equal(back.spec?.replicas, sizeKept ? hub.spec?.replicas : size === 'large' ? 3 : 1);
    assert.equal(back.spec?.paused, hub.spec?.paused);
  }), { numRuns: RUNS });
});
