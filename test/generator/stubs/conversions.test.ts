/**
 * Conversion stubs: written for a CRD with several served versions, beside the handler stubs and
 * by their rule (only when absent); fields alike in both versions copied, the others left as
 * undeclared `TODO_…` names that fail the type check; the hub is the storage version or `--hub`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from '../../../generator/pipeline/generate.ts';

const version = (name: string, storage: boolean, spec: string) => `
    - name: ${name}
      served: true
      storage: ${storage}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties: {${spec}}
            status: { type: object, x-kubernetes-preserve-unknown-fields: true }`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: gadgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { plural: gadgets, singular: gadget, kind: Gadget }
  versions:${version('v1', true, 'replicas: { type: integer }, color: { type: string, description: new words }')}
${version('v1beta1', false, 'replicas: { type: integer }, color: { type: string }').slice(1)}
${version('v1alpha1', false, 'size: { type: string }, color: { type: string }').slice(1)}
`;

function project(t: { after: (fn: () => void) => void }) {
  const root = mkdtempSync(join(tmpdir(), 'kopf-gen-conversions-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  writeFileSync(join(root, 'crd.yaml'), CRD);
  const run = (hub?: string) => generate({
    inputs: ['crd.yaml'], outDir: 'src/generated', stubsDir: 'src/handlers', cwd: root, ...(hub ? { hub } : {}),
  });
  return { root, run, stub: join(root, 'src/conversions/example.com/gadgets.ts') };
}

test('a CRD of several versions gets a conversion stub: alike fields copied, the others left to write', async (t) => {
  const { run, stub } = project(t);
  const { stubs } = await run();
  assert.ok(stubs?.created.includes(stub), 'created beside the handler stubs');
  const text = readFileSync(stub, 'utf8');
  assert.match(text, /^import \{ Gadget \} from '\.\.\/\.\.\/generated\/index\.ts';$/m);
  assert.match(text, /^import \* as v1beta1 from '\.\.\/\.\.\/generated\/example\.com\/v1beta1\.ts';$/m);
  assert.match(text, /^on\.convert\(Gadget, v1beta1\.Gadget, \{$/m);
  assert.match(text, /^on\.convert\(Gadget, v1alpha1\.Gadget, \{$/m);
  // v1beta1 is v1 but for a description: its spec is copied whole, both ways.
  const beta = text.slice(text.indexOf('v1beta1.Gadget, {'), text.indexOf('v1alpha1.Gadget, {'));
  assert.match(beta, /^ {4}spec: spec_,$/m);
  assert.doesNotMatch(beta, /TODO_/);
  const alpha = text.slice(text.indexOf('v1alpha1.Gadget, {'));
  assert.match(alpha, /^ {6}color: spec_\.color,$/m);
  assert.match(alpha, /^ {6}replicas: TODO_up_spec_replicas, \/\/ spec\.replicas: new; write it$/m);
  assert.match(alpha, /^ {6}size: TODO_down_spec_size, /m);
  assert.match(alpha, /apiVersion: 'example\.com\/v1alpha1',/);
  assert.doesNotMatch(text, /(let|const|var|function) TODO_/, 'no TODO is declared: tsc fails until it is written');
});

test('an existing stub is the user\'s: never rewritten, the versions it lacks reported', async (t) => {
  const { run, stub } = project(t);
  await run();
  const own = "import * as v1beta1 from 'x';\n// on.convert(Gadget, v1beta1.Gadget, …)\n";
  writeFileSync(stub, own);
  const { stubs } = await run();
  assert.equal(readFileSync(stub, 'utf8'), own);
  assert.ok(stubs?.unchanged.includes(stub));
  assert.ok(stubs?.notes.some((n) => n.includes(stub) && /gadgets\.example\.com v1alpha1: add them by hand/.test(n)),
    JSON.stringify(stubs?.notes));
});

test('--hub names another hub; one version alone gets no stub', async (t) => {
  const { run, stub } = project(t);
  await run('v1beta1');
  const text = readFileSync(stub, 'utf8');
  assert.match(text, /^import \{ Gadget \} from '\.\.\/\.\.\/generated\/example\.com\/v1beta1\.ts';$/m);
  assert.match(text, /^on\.convert\(Gadget, v1\.Gadget, \{$/m);
  const single = project(t);
  writeFileSync(join(single.root, 'crd.yaml'), CRD.split('\n    - name: v1beta1')[0]!);
  await single.run();
  assert.equal(existsSync(single.stub), false);
});
