/**
 * Conversions without an API server: registration's checks, each direction and spoke to spoke,
 * the checks of what converters return, and the kept fields' annotation, whoever wrote it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { RegistrationError } from '../../../runtime/registry/ids.ts';
import { ConversionFailure, Conversions } from '../../../runtime/conversion/converting.ts';
import { CONVERSION_ANNOTATION } from '../../../runtime/conversion/preservation.ts';
import type { KubeObject } from '../../../runtime/structs/resources.ts';
import {
  GROUP, V1, V1alpha1, V1beta1, alphaConverters, betaConverters, widgetRegistry,
} from '../../e2e/conversion/widgets.ts';

const conversions = () => new Conversions(widgetRegistry().conversionHandlers);
const metadata = { name: 'w', namespace: 'default', uid: 'u-1', resourceVersion: '7' };
const hub = (spec: Record<string, unknown>): KubeObject =>
  ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata, spec });

test('on.convert refuses other resources, one version twice, two hubs, and a missing direction', () => {
  const registry = new OperatorRegistry();
  const other = { ...V1alpha1, kind: 'Gizmo', plural: 'gizmos' };
  assert.throws(() => registry.on.convert(V1, other, alphaConverters), /different resources/);
  assert.throws(() => registry.on.convert(V1, V1, alphaConverters as never), /the hub and the spoke are one version/);
  const upOnly = { up: alphaConverters.up } as never;
  assert.throws(() => registry.on.convert(V1, V1alpha1, upOnly), /`down` must be a function/);
  registry.on.convert(V1, V1alpha1, alphaConverters);
  assert.throws(() => registry.on.convert(V1, V1alpha1, alphaConverters), /registered already/);
  assert.throws(() => registry.on.convert(V1beta1, V1alpha1, alphaConverters as never),
    (e: unknown) => e instanceof RegistrationError &&
      /the hub of widgets\.e2e\.kopf\.dev is v1 already/.test(e.message));
  registry.on.convert(V1, V1beta1, betaConverters);
  assert.deepEqual(registry.conversionHandlers.map((h) => h.id),
    ['widgets.e2e.kopf.dev v1alpha1 ⇄ v1', 'widgets.e2e.kopf.dev v1beta1 ⇄ v1']);
});

test('converters are typed by the descriptors: up returns the hub\'s type, down the spoke\'s', () => {
  const registry = new OperatorRegistry();
  registry.on.convert(V1, V1alpha1, {
    // @ts-expect-error: the hub's spec has no `size`
    up: ({ spec, ...old }) => ({ ...old, apiVersion: `${GROUP}/v1` as const, spec: { size: spec?.size } }),
    down: ({ spec, ...hub }) => ({ ...hub, apiVersion: `${GROUP}/v1alpha1`, spec: { colour: spec?.color } }),
  });
  assert.equal(registry.conversionHandlers.length, 1);
});

test('up, down, spoke to spoke; the same version as it is', () => {
  const c = conversions();
  const alpha = c.convert(hub({ replicas: 1, color: 'red' }), `${GROUP}/v1alpha1`);
  const spec = { size: 'small', colour: 'red' };
  assert.deepEqual(alpha, { apiVersion: `${GROUP}/v1alpha1`, kind: 'Widget', metadata, spec });
  assert.deepEqual(c.convert(alpha, `${GROUP}/v1beta1`).spec, { count: 1, color: 'red' });
  const same = hub({});
  assert.equal(c.convert(same, `${GROUP}/v1`), same);
});

test('what v1alpha1 lacks is kept in an annotation and restored; a change through it wins', () => {
  const c = conversions();
  const alpha = c.convert(hub({ replicas: 5, color: 'red', paused: true }), `${GROUP}/v1alpha1`);
  const kept = JSON.parse(alpha.metadata!.annotations![CONVERSION_ANNOTATION]!);
  const fields = [{ p: ['spec', 'paused'], h: true }, { p: ['spec', 'replicas'], h: 5, r: 3 }];
  assert.deepEqual(kept, { hub: 'v1', fields });
  assert.deepEqual(c.convert(alpha, `${GROUP}/v1`), hub({ replicas: 5, color: 'red', paused: true }));
  const changed = { ...alpha, spec: { size: 'small', colour: 'blue' } };
  assert.deepEqual(c.convert(changed, `${GROUP}/v1`), hub({ replicas: 1, color: 'blue', paused: true }));
  assert.equal(c.convert(hub({ replicas: 3 }), `${GROUP}/v1alpha1`).metadata?.annotations, undefined, 'nothing lost');
});

test('a kept annotation cannot reach the metadata, the type, or another hub\'s fields', () => {
  const c = conversions();
  const forged = JSON.stringify({ hub: 'v1', fields: [
    { p: ['metadata', 'name'], h: 'evil' }, { p: ['apiVersion'], h: 'x/v9' }, { p: ['__proto__', 'polluted'], h: 1 },
    { p: [1, 2], h: 1 }, 'junk', { p: ['spec', 'paused'], h: true },
  ] });
  const alpha = { apiVersion: `${GROUP}/v1alpha1`, kind: 'Widget', spec: {},
    metadata: { ...metadata, annotations: { [CONVERSION_ANNOTATION]: forged } } };
  const up = c.convert(alpha, `${GROUP}/v1`);
  assert.deepEqual(up, { ...hub({ paused: true }) });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const otherHub = '{"hub":"v0","fields":[{"p":["spec","paused"],"h":true}]}';
  const stale = { ...alpha, metadata: { ...metadata, annotations: { [CONVERSION_ANNOTATION]: otherHub } } };
  assert.deepEqual(c.convert(stale, `${GROUP}/v1`), hub({}));
  const broken = { ...alpha, metadata: { ...metadata, annotations: { [CONVERSION_ANNOTATION]: '{not json' } } };
  assert.deepEqual(c.convert(broken, `${GROUP}/v1`), hub({}));
});

test('a converter that throws, or returns a wrong apiVersion, kind or metadata, is refused by name', () => {
  const c = conversions();
  const failure = (spec: Record<string, unknown>) => {
    try {
      c.convert(hub(spec), `${GROUP}/v1alpha1`);
    } catch (error) {
      assert.ok(error instanceof ConversionFailure);
      return error.message;
    }
    assert.fail('converted');
  };
  const name = 'The converter down of widgets.e2e.kopf.dev v1alpha1 ⇄ v1';
  assert.equal(failure({ color: 'explode' }), `${name} failed: v1 exploded on its way down`);
  assert.equal(failure({ color: 'wrong-version' }),
    `${name} returned apiVersion 'e2e.kopf.dev/v1beta1', not 'e2e.kopf.dev/v1alpha1'.`);
  assert.equal(failure({ color: 'rename' }),
    `${name} changed metadata.name: converters may change only labels and annotations.`);
  const registry = new OperatorRegistry();
  registry.on.convert(V1, V1alpha1, {
    up: ({ spec: _spec, ...o }) => ({ ...o, apiVersion: `${GROUP}/v1`, kind: 'Gizmo' }),
    down: () => 7 as never,
  });
  const odd = new Conversions(registry.conversionHandlers);
  const alpha = { apiVersion: `${GROUP}/v1alpha1`, kind: 'Widget', metadata };
  assert.throws(() => odd.convert(alpha, `${GROUP}/v1`), /returned kind 'Gizmo', not 'Widget'/);
  assert.throws(() => odd.convert(hub({}), `${GROUP}/v1alpha1`), /returned number, not an object/);
});

test('unknown kinds, versions and groups fail with what is known', () => {
  const c = conversions();
  assert.throws(() => c.convert({ apiVersion: `${GROUP}/v1`, kind: 'Gizmo' }, `${GROUP}/v1alpha1`),
    /There are no converters of Gizmo\.e2e\.kopf\.dev\./);
  assert.throws(() => c.convert(hub({}), `${GROUP}/v2`),
    /no converter of Widget v2 \(known versions: v1, v1alpha1, v1beta1\)/);
  assert.throws(() => c.convert(hub({}), 'other.dev/v1'), /cannot be converted to another group's other\.dev\/v1/);
});
