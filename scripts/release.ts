/**
 * `npm run release -- [--registry URL] [--tag TAG] [--provenance] [--dry-run]`: `kopf`, `kopf-gen`
 * and `create-kopf-operator` built as they are published (scripts/build-package.ts) and published at
 * the one version they share, to the registry at URL, else to the registry npm is configured with.
 *
 * All three are built before any is published, so a build failure publishes nothing; they are then
 * published in the order they depend on each other (a scaffold never names a runtime that is not
 * there yet). The build pins the scaffold's `kopf-gen` to this version, and the scaffold writes this
 * version of `kopf` and `kopf-gen` into the projects it makes. Credentials are npm's own (`npm login
 * --registry URL`, or a token in an .npmrc). `--provenance` is npm's: a signed statement of the CI
 * run that built the packages, which npmjs accepts from a CI with an identity (GitHub Actions).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BuildError, PACKAGES, buildPackage, sourceManifest, type PackageDir } from './build-package.ts';

const USAGE = 'usage: npm run release -- [--registry URL] [--tag TAG] [--provenance] [--dry-run]';
const OPTIONS = {
  registry: { type: 'string' }, tag: { type: 'string' }, provenance: { type: 'boolean' },
  'dry-run': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
} as const;

class ReleaseError extends Error {}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true });
  } catch (error) {
    throw new ReleaseError(`${(error as Error).message}\n${USAGE}`);
  }
  const { values } = parsed;
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const registry = values.registry === undefined ? undefined : registryUrl(values.registry);
  const version = sharedVersion();
  const where = registry ?? 'the registry npm is configured with';
  const dir = mkdtempSync(join(tmpdir(), 'kopf-release-'));
  try {
    // PACKAGES is in the order of publishing: each one's dependencies among the three come before it.
    const built = PACKAGES.map((name) => ({ dir: join(dir, name), manifest: buildPackage(name, join(dir, name)) }));
    const flags = [
      ...(registry ? ['--registry', registry] : []), ...(values.tag ? ['--tag', values.tag] : []),
      ...(values.provenance ? ['--provenance'] : []), ...(values['dry-run'] ? ['--dry-run'] : []),
    ];
    const published: string[] = [];
    for (const pkg of built) {
      const id = `${String(pkg.manifest.name)}@${version}`;
      const status = await npm(['publish', pkg.dir, ...flags]);
      if (status !== 0) {
        const done = published.length ? `; already published: ${published.join(', ')}` : '';
        throw new ReleaseError(`npm publish of ${id} to ${where} failed (exit ${status})${done}`);
      }
      published.push(id);
    }
    const verb = values['dry-run'] ? 'would have published' : 'published';
    console.log(`release: ${verb} ${published.join(', ')} to ${where}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The three packages are released at one version: a scaffold pins the runtime and generator of its own. */
function sharedVersion(): string {
  const versions = new Map<PackageDir, string>(PACKAGES.map((name) => [name, String(sourceManifest(name).version)]));
  const distinct = new Set(versions.values());
  if (distinct.size !== 1) {
    const listed = [...versions].map(([name, version]) => `${name}/package.json: ${version}`).join(', ');
    throw new ReleaseError(`the packages must share one version: ${listed}`);
  }
  return [...distinct][0];
}

function registryUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ReleaseError(`--registry ${text}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ReleaseError(`--registry ${text}: not http(s)`);
  return url.href;
}

/** npm with its output shown as it comes; resolves to its exit code. */
function npm(args: readonly string[]): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('npm', args, { stdio: 'inherit' });
    child.once('error', reject);
    child.once('close', (code) => resolvePromise(code ?? 1));
  });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (!(error instanceof ReleaseError || error instanceof BuildError)) throw error;
  console.error(`release: ${error.message.trimEnd()}`);
  process.exitCode = 1;
});
