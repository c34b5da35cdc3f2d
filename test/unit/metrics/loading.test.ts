/**
 * An operator without metrics loads none of their code: prom-client and the runtime's metrics
 * layer are imported only when metrics are asked for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../../..');

test('the runtime and `kopf run` do not load prom-client or the metrics layer until metrics are asked for', () => {
  const script = `
    const { registerHooks } = await import('node:module');
    const resolved = [];
    registerHooks({ resolve: (specifier, context, next) => {
      const found = next(specifier, context);
      resolved.push(found.url);
      return found;
    } });
    await import(${JSON.stringify(join(root, 'runtime/index.ts'))});
    await import(${JSON.stringify(join(root, 'runtime/cli/run.ts'))});
    const before = resolved.length;
    await import(${JSON.stringify(join(root, 'runtime/metrics/prometheus.ts'))});
    console.log(JSON.stringify({ without: resolved.slice(0, before), with: resolved.slice(before) }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  const { without, with: asked } = JSON.parse(output) as { without: string[]; with: string[] };
  const seen = without.some((url) => url.endsWith('/runtime/observation/resource-names.ts'));
  assert.ok(seen, 'the probe sees what is loaded');
  for (const url of without) {
    assert.ok(!url.includes('/node_modules/prom-client/') && !url.includes('/runtime/metrics/'), `${url} is loaded`);
  }
  assert.ok(asked.some((url) => url.includes('/node_modules/prom-client/')), 'the probe sees prom-client when asked');
});
