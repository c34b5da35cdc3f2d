/**
 * kopf's well-known types (runtime/structs/kubetypes.ts) must be exactly the types kopf-gen
 * would generate for the schemas it replaces with them (generator/emit/wellknown.ts): this writes
 * those schemas through the generator with well-known matching off, and a file that compiles
 * only if each pair is mutually assignable.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderModule } from '../../../generator/emit/module.ts';
import { ShapeTable } from '../../../generator/emit/shapes.ts';
import { WELL_KNOWN_SCHEMAS } from '../../../generator/emit/wellknown.ts';
import { newJsonMap } from '../../../generator/input/json.ts';
import { buildModel } from '../../../generator/model/build.ts';
import { source } from './sources.ts';

export function writeWellKnownAgreement(dir: string): void {
  const properties = newJsonMap();
  for (const [name, schema] of Object.entries(WELL_KNOWN_SCHEMAS)) properties[name] = schema;
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'agreements.agree.kopf.dev' },
    spec: {
      group: 'agree.kopf.dev', scope: 'Namespaced', names: { kind: 'Agreement', plural: 'agreements' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
        }
      ],
    },
  };
  const model = buildModel([source('agree.yaml', JSON.stringify(crd))]);
  const resource = model.resources[0]!;
  const module = renderModule(
    'agree.kopf.dev',
    'v1',
    [{ resource, version: resource.versions[0]! }],
    new ShapeTable(),
    { wellKnown: false },
  );
  const file = join(dir, 'agree.kopf.dev', 'v1.ts');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, module.text);
  const checks = Object.keys(WELL_KNOWN_SCHEMAS).map(
    (name) => `export const ${name.toLowerCase()}: Same<kopf.${name}, gen.AgreementSpec${name}> = true;`
  );
  writeFileSync(join(dir, 'agreement.ts'), [
    "import type * as kopf from 'kopf';",
    "import type * as gen from './agree.kopf.dev/v1.ts';",
    'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
    ...checks,
    '',
  ].join('\n'));
}
