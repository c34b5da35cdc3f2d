/**
 * The whole CRD corpus and the feature matrix: every CRD generates; generating again gives the
 * same bytes (`check` finds nothing stale); the output, sample objects per CRD version (minimal
 * input, read, full), the check that kopf's well-known types are what kopf-gen takes them for,
 * and the must-fail fixtures compile under `tsc --strict` with TypeScript 5.9 and 7 — one program
 * per compiler for everything.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generate } from '../../generator/index.ts';
import type { GenerateResult } from '../../generator/index.ts';
import { isJsonMap } from '../../generator/input/json.ts';
import { batches, corpusFiles } from './support/corpus.ts';
import type { Batch } from './support/corpus.ts';
import { compile, REPO, TS5, typescript7, writeProject } from './support/compile.ts';
import type { Compiler, TsDiagnostic } from './support/compile.ts';
import { sampleObject } from './support/samples.ts';
import type { SampleMode } from './support/samples.ts';
import { writeWellKnownAgreement } from './support/wellknown.ts';

const FIXTURES = join(REPO, 'test/generator/fixtures');

describe('kopf-gen on the CRD corpus', () => {
  let root: string;
  let groups: Batch[];
  const results: GenerateResult[] = [];
  let tsconfig: string;
  let sampleCount = 0;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'kopf-gen-corpus-'));
    groups = batches(corpusFiles());
    for (const [i, batch] of groups.entries()) {
      results.push(await generate({ inputs: batch.files, outDir: join(root, 'out', `b${i}`), cwd: root }));
    }
    mkdirSync(join(root, 'samples'));
    groups.forEach((batch, i) => {
      const text = samplesModule(batch, results[i]!, `../out/b${i}`);
      sampleCount += text.count;
      writeFileSync(join(root, 'samples', `b${i}.ts`), text.text);
    });
    writeFileSync(join(root, 'kopf.ts'), [
      `export type * from ${JSON.stringify(join(REPO, 'runtime/structs/resources.ts'))};`,
      `export type * from ${JSON.stringify(join(REPO, 'runtime/structs/kubetypes.ts'))};`,
      '',
    ].join('\n'));
    writeWellKnownAgreement(join(root, 'agree'));
    tsconfig = writeProject(
      root,
      ['out/**/*.ts', 'samples/**/*.ts', 'agree/**/*.ts', join(FIXTURES, '*.fail.ts')],
      join(root, 'kopf.ts'),
    );
  });

  after(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('every CRD generates, with a module per group and served version', () => {
    const crds = groups.reduce((n, b) => n + b.crds.length, 0);
    const resources = results.reduce((n, r) => n + r.model.resources.length, 0);
    assert.equal(resources, crds);
    assert.ok(crds >= 262, `the corpus has its 261 CRDs and the feature matrix (${crds})`);
    for (const result of results) {
      for (const r of result.model.resources) {
        for (const v of r.versions.filter((x) => x.served))
          assert.ok(result.files.includes(`${r.group}/${v.name}.ts`), `${r.name} ${v.name}`);
      }
    }
  });

  test('generating again gives identical bytes', async () => {
    for (const [i, batch] of groups.entries()) {
      const again = await generate({ inputs: batch.files, outDir: join(root, 'out', `b${i}`), cwd: root, check: true });
      assert.deepEqual(again.stale, [], `batch ${i}`);
      assert.equal(again.status, 'fresh');
    }
  });

  for (const compiler of [TS5, 'TypeScript 7'] as const) {
    const name = typeof compiler === 'string' ? compiler : compiler.name;
    test(`output, samples and fixtures compile under ${name} (strict), and the fixtures fail where marked`, () => {
      const tsc: Compiler = typeof compiler === 'string' ? typescript7() : compiler;
      const { diagnostics, output, status } = compile(tsc, tsconfig);
      assert.ok(sampleCount > 700, `samples written (${sampleCount})`);
      const expected = expectedErrors();
      assert.ok(expected.length >= 10);
      const unexpected = diagnostics.filter((d) => !expected.some((e) => matches(e, d)));
      assert.deepEqual(unexpected.map(show), [], `${tsc.name}: only the marked errors\n${output.slice(0, 4000)}`);
      const missing = expected.filter((e) => !diagnostics.some((d) => matches(e, d)));
      assert.deepEqual(
        missing.map((e) => `${e.file}:${e.line} ${e.code} ${e.text}`),
        [],
        `${tsc.name}: every marked error`,
      );
      assert.notEqual(status, 0, 'tsc reports the errors of the fixtures');
    });
  }
});

interface ExpectedError {
  readonly file: string;
  readonly line: number;
  readonly code: string;
  readonly text: string;
}

/** `// @expect-error TS2322 'text'` expects that error on the next line (`TS1|TS2`: either code). */
function expectedErrors(): ExpectedError[] {
  const list: ExpectedError[] = [];
  for (const name of readdirSync(FIXTURES).filter((f) => f.endsWith('.fail.ts'))) {
    const file = join(FIXTURES, name);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      const m = /\/\/ @expect-error (TS\d+(?:\|TS\d+)*) '(.*)'/.exec(line);
      if (m) list.push({ file, line: i + 2, code: m[1]!, text: m[2]! });
    });
  }
  return list;
}

function matches(e: ExpectedError, d: TsDiagnostic): boolean {
  return d.file === e.file && d.line === e.line && e.code.split('|').includes(d.code) && d.message.includes(e.text);
}

function show(d: TsDiagnostic): string {
  return `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`;
}

/** One TypeScript file with three samples per CRD version, typed with the generated types. */
function samplesModule(batch: Batch, result: GenerateResult, outRel: string): { text: string; count: number } {
  const lines: string[] = [];
  let count = 0;
  const byName = new Map(result.model.resources.map((r) => [r.name, r]));
  batch.crds.forEach((crd, i) => {
    const spec = crd.value['spec'];
    const names = isJsonMap(spec) ? spec['names'] : undefined;
    const group = isJsonMap(spec) ? String(spec['group']) : '';
    const plural = isJsonMap(names) ? String(names['plural']) : '';
    const resource = byName.get(`${plural}.${group}`);
    assert.ok(resource, `${plural}.${group} is in the model`);
    const versions = isJsonMap(spec) && Array.isArray(spec['versions']) ? spec['versions'] : [];
    for (const version of versions) {
      if (!isJsonMap(version) || version['served'] !== true) continue;
      const schema = isJsonMap(version['schema']) ? version['schema']['openAPIV3Schema'] : undefined;
      if (!isJsonMap(schema)) continue;
      const alias = `m${i}_${String(version['name']).replace(/\W/g, '_')}`;
      lines.push(
        `import type * as ${alias} from ${JSON.stringify(`${outRel}/${resource.group}/${String(version['name'])}.ts`)};`
      );
      const apiVersion = `${resource.group}/${String(version['name'])}`;
      const modes: [SampleMode, string][] = [
        ['minimal', `${resource.typeName}Input`],
        ['read', resource.typeName],
        ['full', `${resource.typeName}Input`],
      ];
      for (const [mode, type] of modes) {
        lines.push(
          `export const ${alias}_${mode}: ${alias}.${type} = ${sampleObject(schema, apiVersion, resource.kind, mode)};`
        );
        count++;
      }
    }
  });
  return { text: `${lines.join('\n')}\n`, count };
}
