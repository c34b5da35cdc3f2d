import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../../..');

test('the runtime and `kopf run` do not load Node\'s HTTP client, fetch or HTTP/2 until a proxy needs them', () => {
  const script = `
    await import(${JSON.stringify(join(root, 'runtime/index.ts'))});
    await import(${JSON.stringify(join(root, 'runtime/cli/run.ts'))});
    const loaded = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
    console.log(JSON.stringify(loaded));`;
  const loaded: string[] = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
  );
  assert.ok(loaded.includes('tls'), 'the probe sees the modules that are loaded');
  for (const name of ['http', 'https', 'http2', 'internal/deps/undici/undici'])
    assert.ok(!loaded.includes(name), `${name} is loaded`);
});

/**
 * The module URLs resolved while the runtime and `kopf run` are imported, and then while `later`
 * (files of the repository) are: what an operator loads before it asks for more.
 */
function resolvedUrls(later: string[] = []): { first: string[]; later: string[] } {
  const imports = (paths: string[]) => paths.map((path) => `await import(${JSON.stringify(join(root, path))});`);
  const script = `
    const { registerHooks } = await import('node:module');
    const resolved = [];
    registerHooks({ resolve: (specifier, context, next) => {
      const found = next(specifier, context);
      resolved.push(found.url);
      return found;
    } });
    ${imports(['runtime/index.ts', 'runtime/cli/run.ts']).join('\n')}
    const before = resolved.length;
    ${imports(later).join('\n')}
    console.log(JSON.stringify({ first: resolved.slice(0, before), later: resolved.slice(before) }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(output) as { first: string[]; later: string[] };
}

test('the runtime and `kopf run` load neither the YAML parser nor the hash of long keys until they are needed', () => {
  const resolved = resolvedUrls().first;
  const seesLoaded = resolved.some((url) => url.endsWith('/runtime/kube/credentials/kubeconfig.ts'));
  assert.ok(seesLoaded, 'the probe sees the modules that are loaded');
  const unneeded = ['/node_modules/yaml/', '/kubeconfig-checks.ts', '/node_modules/@noble/hashes/'];
  for (const url of resolved) assert.ok(!unneeded.some((part) => url.includes(part)), `${url} is loaded`);
});

test('the runtime and `kopf run` do not load prom-client or the metrics layer until metrics are asked for', () => {
  const { first, later } = resolvedUrls(['runtime/metrics/prometheus.ts']);
  const seen = first.some((url) => url.endsWith('/runtime/observation/resource-names.ts'));
  assert.ok(seen, 'the probe sees what is loaded');
  for (const url of first) {
    assert.ok(!url.includes('/node_modules/prom-client/') && !url.includes('/runtime/metrics/'), `${url} is loaded`);
  }
  assert.ok(later.some((url) => url.includes('/node_modules/prom-client/')), 'the probe sees prom-client when asked');
});
