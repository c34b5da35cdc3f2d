/**
 * `npm start`: the product as a new user meets it, in one command. A new operator project is
 * scaffolded from this checkout into a temporary folder (create-kopf-operator --from .), its
 * types are generated (kopf-gen), and it runs on an embedded local control plane (kopf demo): the
 * CRD installed, the sample object created, what the handlers did shown, the object deleted, and
 * everything stopped. The temporary folder is removed at the end, also after a failure or Ctrl-C.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const temp = mkdtempSync(join(tmpdir(), 'kopf-start-'));
const project = join(temp, 'my-operator');

/** Runs one step with its output shown; the exit code, or 1 when it could not start. */
function step(title: string, args: readonly string[], cwd: string): number {
  console.log(`\n### ${title}\n`);
  // npm takes what it has cached (TypeScript, @types/node) without asking the registry.
  const env = { ...process.env, npm_config_prefer_offline: 'true' };
  return spawnSync(process.execPath, args, { cwd, stdio: 'inherit', env }).status ?? 1;
}

function main(): number {
  const steps: [string, string[], string][] = [
    ['npx create-kopf-operator my-operator --yes --from .', [
      join(root, 'create/cli/main.ts'), project, '--yes', '--from', root,
    ], temp],
    ['npm run gen (kopf-gen crds/)', [join(root, 'generator/cli/main.ts'), 'crds/'], project],
    ['kopf demo: the operator on a local control plane, with the sample object', [
      join(root, 'runtime/cli/main.ts'), 'demo', '--crd', 'crds/', '--object', 'samples/widget.yaml', 'src/operator.ts',
    ], project],
  ];
  for (const [title, args, cwd] of steps) {
    const code = step(title, args, cwd);
    if (code !== 0) return code;
  }
  return 0;
}

// The steps end on Ctrl-C by themselves; this process only waits for them and then cleans up.
process.on('SIGINT', () => {});
let code = 1;
try {
  code = main();
} finally {
  rmSync(temp, { recursive: true, force: true });
}
console.log(code === 0 ? `\nDone; ${temp} is removed.` : `\nFailed (exit ${code}); ${temp} is removed.`);
process.exit(code);
