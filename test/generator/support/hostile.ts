/**
 * For tests with hostile CRDs: CRDs with any names (as JSON, so that any string fits), and what
 * generated code does when it is type-checked, imported and its handlers called (the project
 * folder to run kopf-gen in: project.ts).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { typeChecker } from '../typed/compile.ts';
import type { Finding } from '../typed/compile.ts';
import { REPO } from './compile.ts';
import type { Project } from './project.ts';

export interface CrdNames {
  readonly group?: string;
  readonly kind?: string;
  readonly plural?: string;
  readonly singular?: string;
  readonly listKind?: string;
  readonly shortNames?: readonly unknown[];
  readonly categories?: readonly unknown[];
  readonly versions?: readonly string[];
  /** The CRD's own name; `<plural>.<group>` unless given. */
  readonly name?: string;
}

/** A v1 CRD with the given names, everything else valid; a name given as undefined is left out. */
export function crdObject(names: CrdNames = {}): object {
  const group = 'group' in names ? names.group : 'example.com';
  const plural = 'plural' in names ? names.plural : 'widgets';
  const spec: { [key: string]: unknown } = {
    group,
    scope: 'Namespaced',
    names: {
      kind: 'kind' in names ? names.kind : 'Widget',
      plural,
      ...(names.singular !== undefined ? { singular: names.singular } : {}),
      ...(names.listKind !== undefined ? { listKind: names.listKind } : {}),
      ...(names.shortNames !== undefined ? { shortNames: names.shortNames } : {}),
      ...(names.categories !== undefined ? { categories: names.categories } : {}),
    },
    versions: (names.versions ?? ['v1']).map((name, i) => ({
      name, served: true, storage: i === 0,
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
        },
      },
    })),
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: names.name ?? `${String(plural)}.${String(group)}` },
    spec,
  };
}

export function crdJson(names: CrdNames = {}): string {
  return `${JSON.stringify(crdObject(names), null, 2)}\n`;
}

export interface HandlerCall {
  readonly event: string;
  /** The descriptor's `kind`, as the generated code holds it. */
  readonly kind: string;
  /** What the handler logged. */
  readonly messages: readonly string[];
}

export interface Run {
  readonly status: number | null;
  /** Everything printed besides the result: nothing, when the code runs nothing it should not. */
  readonly stdout: string;
  readonly stderr: string;
  readonly calls: readonly HandlerCall[];
}

const RESULT = '\u0000kopf-gen-test-result\u0000';

/** A stand-in for kopf: `on.create/update/delete` call the handler at once, with a logger that records. */
const FAKE_KOPF = `
const calls = [];
const pending = [];
const register = (event) => (resource, handler) => {
  const messages = [];
  const record = (message) => { messages.push(String(message)); };
  const logger = { info: record, debug: record, warning: record, error: record };
  const done = () => { calls.push({ event, kind: resource.kind, messages }); };
  pending.push(Promise.resolve(handler({ spec: {}, logger })).then(done));
};
export const on = { create: register('create'), update: register('update'), delete: register('delete') };
export async function settled() {
  await Promise.all(pending);
  return calls;
}
`;

/**
 * Imports the given generated files in a fresh Node process with the stand-in kopf, calls every
 * handler they register, and reports what happened. The files are copied, with `src/` as it is.
 */
export function runGenerated(project: Project, files: readonly string[]): Run {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-gen-run-'));
  try {
    cpSync(join(project.root, 'src'), join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
    mkdirSync(join(dir, 'node_modules', 'kopf'), { recursive: true });
    const kopfPackage = '{ "name": "kopf", "type": "module", "exports": "./index.js" }\n';
    writeFileSync(join(dir, 'node_modules', 'kopf', 'package.json'), kopfPackage);
    writeFileSync(join(dir, 'node_modules', 'kopf', 'index.js'), FAKE_KOPF);
    const imports = files.map((f) => `await import(${JSON.stringify(`./${relative(project.root, f)}`)});`).join('\n');
    writeFileSync(join(dir, 'run.mjs'), [
      "import { settled } from 'kopf';",
      imports,
      `process.stdout.write(${JSON.stringify(RESULT)} + JSON.stringify(await settled()));`,
      '',
    ].join('\n'));
    const run = spawnSync(process.execPath, ['run.mjs'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    const at = run.stdout.lastIndexOf(RESULT);
    const calls = at >= 0 ? (JSON.parse(run.stdout.slice(at + RESULT.length)) as HandlerCall[]) : [];
    return { status: run.status, stdout: at >= 0 ? run.stdout.slice(0, at) : run.stdout, stderr: run.stderr, calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let checker: ((file: string) => Finding[]) | undefined;

/**
 * Type-checks the given files of a project under the repository's strict options, with the real
 * kopf: the project gets the repository's node_modules. Findings in the project's own files.
 */
export function typeCheck(project: Project, files: readonly string[]): Finding[] {
  symlinkSync(join(REPO, 'node_modules'), join(project.root, 'node_modules'), 'dir');
  writeFileSync(join(project.root, 'package.json'), '{ "type": "module", "private": true }\n');
  const entry = join(project.root, 'check.ts');
  writeFileSync(entry, files.map((f) => `import ${JSON.stringify(`./${relative(project.root, f)}`)};\n`).join(''));
  checker ??= typeChecker();
  try {
    return checker(entry).filter((f) => f.file.startsWith(`${project.root}/`));
  } finally {
    rmSync(join(project.root, 'node_modules'));
    rmSync(join(project.root, 'package.json'));
    rmSync(entry);
  }
}
