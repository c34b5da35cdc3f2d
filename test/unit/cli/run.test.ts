/**
 * `kopf run` before it reaches a cluster: usage errors exit 2; an operator file that cannot be
 * loaded exits 1 saying where and why; modules are resolved from the current directory; a missing
 * Kubernetes configuration is a message, not a trace; the settings `kopf run` gives an operator.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runOperator } from '../../../runtime/testing/runner.ts';

const CLI = fileURLToPath(new URL('../../../runtime/cli/main.ts', import.meta.url));

/** A project folder, away from this repository's node_modules, with these files in it. */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kopf-run-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** Runs `kopf run` in `dir`, with no Kubernetes configuration to be found. */
function kopfRun(dir: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, HOME: dir, KUBECONFIG: '' };
  const result = spawnSync(
    process.execPath,
    [CLI, 'run', '--standalone', '-A', ...args],
    { cwd: dir, env, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('bad webhook options are usage errors', () => {
  const dir = project({});
  const cases: [string[], string][] = [
    [['--webhook-port', 'x'], "kopf run: --webhook-port must be a port number, not 'x'.\n"],
    [['--webhook-cert', 'c.pem'], 'kopf run: --webhook-cert and --webhook-key go together.\n'],
    [['--webhook-service', 'svc'], "kopf run: --webhook-service must be NAMESPACE/NAME[:PORT], not 'svc'.\n"],
  ];
  for (const [args, message] of cases) {
    const run = kopfRun(dir, ...args);
    assert.equal(run.status, 2);
    assert.equal(run.stderr, message);
  }
});

test('a missing file or an unknown option is a usage error', () => {
  const dir = project({});
  const missing = kopfRun(dir, 'handlers.ts');
  assert.equal(missing.status, 2);
  assert.equal(missing.stderr, 'kopf run: no such file: handlers.ts\n');
  const unknown = kopfRun(dir, '--namepsace', 'x');
  assert.equal(unknown.status, 2);
  // Only the option: not Node's advice on positional arguments after `--`, which a misspelt option is not.
  assert.equal(unknown.stderr, "kopf run: Unknown option '--namepsace'.\nSee `kopf run --help`.\n");
  // The same for every command: here, an option without its value.
  const other = spawnSync(process.execPath, [CLI, 'demo', '--crd'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  assert.equal(other.status, 2);
  assert.equal(other.stderr, "kopf demo: Option '--crd <value>' argument missing\nSee `kopf demo --help`.\n");
});

test('a liveness endpoint that is not an http URL is a usage error', () => {
  const dir = project({});
  const https = kopfRun(dir, '--liveness', 'https://0.0.0.0:8080/healthz');
  assert.equal(https.status, 2);
  assert.equal(
    https.stderr,
    'kopf run: --liveness: Unsupported scheme of the liveness endpoint: https://0.0.0.0:8080/healthz (only http:// ' +
      'is served).\n',
  );
  const bare = kopfRun(dir, '-L', '0.0.0.0:8080');
  assert.equal(bare.status, 2);
  assert.match(bare.stderr, /^kopf run: --liveness: /);
});

test('a metrics endpoint that is not an http URL is a usage error', () => {
  const dir = project({});
  const https = kopfRun(dir, '--metrics', 'https://0.0.0.0:8080/metrics');
  assert.equal(https.status, 2);
  assert.equal(
    https.stderr,
    'kopf run: --metrics: Unsupported scheme of the metrics endpoint: https://0.0.0.0:8080/metrics (only http:// ' +
      'is served).\n',
  );
  const bare = kopfRun(dir, '--metrics', '0.0.0.0:8080');
  assert.equal(bare.status, 2);
  assert.match(bare.stderr, /^kopf run: --metrics: The metrics endpoint must be a URL/);
});

test('a syntax error says where it is, without the loader’s frames', () => {
  const dir = project({ 'handlers.ts': 'const ok = 1;\nconst broken: number = ;\n' });
  const run = kopfRun(dir, 'handlers.ts');
  assert.equal(run.status, 1);
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines[0], 'kopf run: cannot load handlers.ts:');
  assert.match(lines[1]!, /handlers\.ts:2$/);
  assert.ok(lines.includes('const broken: number = ;'), run.stderr);
  assert.match(lines.at(-1)!, /SyntaxError.*: Expression expected$/);
  assert.ok(!/^\s+at /m.test(run.stderr), run.stderr);
});

test('an error thrown while a file loads comes with the file’s frames only', () => {
  const dir = project(
    { 'handlers.ts': 'function configure(): never {\n  throw new Error("no settings file");\n}\nconfigure();\n' }
  );
  const run = kopfRun(dir, 'handlers.ts');
  assert.equal(run.status, 1);
  assert.match(
    run.stderr,
    /^kopf run: cannot load handlers\.ts:\nError: no settings file\n\s+at configure \(\S+handlers\.ts:2:9\)/,
  );
  assert.ok(!run.stderr.includes('node:internal'), run.stderr);
});

test('a relative import without its extension names the file it means', () => {
  const dir = project({ 'handlers.ts': "import './lib/children';\n", 'lib/children.ts': '' });
  const run = kopfRun(dir, 'handlers.ts');
  assert.equal(run.status, 1);
  assert.match(run.stderr, /^kopf run: cannot load handlers\.ts:\nCannot find module '\S+children' imported from /);
  assert.match(run.stderr, /\n\(relative imports name the file with its extension: children\.ts, not children\)\n$/);
});

test('modules are resolved from the current directory; no configuration ends the run with a message', () => {
  const dir = project({
    'handlers.ts': '',
    'node_modules/team-handlers/package.json': JSON.stringify(
      { name: 'team-handlers', type: 'module', exports: { import: './index.js' } }
    ),
    'node_modules/team-handlers/index.js': 'console.log("team-handlers loaded");\n',
  });
  const run = kopfRun(dir, 'handlers.ts', '-m', 'team-handlers');
  assert.equal(run.stdout.split('\n')[0], 'team-handlers loaded');
  assert.equal(run.status, 1);
  assert.match(
    run.stderr + run.stdout,
    /The operator has failed: no Kubernetes configuration: KUBECONFIG is not set, \S+ does not exist/,
  );
  assert.ok(!/^\s+at /m.test(run.stderr + run.stdout), 'no trace for a configuration error');

  const missing = kopfRun(dir, '-m', 'no-such-package');
  assert.equal(missing.status, 1);
  assert.match(
    missing.stderr,
    /^kopf run: cannot load module no-such-package:\nCannot find package 'no-such-package' imported from /,
  );
});

test('kopf run gathers API responses over 2 ms (networking.readCoalescing); an embedded operator does not by ' +
  'default', () => {
  const runtime = pathToFileURL(fileURLToPath(new URL('../../../runtime/index.ts', import.meta.url))).href;
  const dir = project({
    'handlers.ts': `import { on, defaultSettings } from ${JSON.stringify(runtime)};\n`
      + 'on.startup(function report({ settings }) {\n'
      + '  console.log(`run ${settings.networking.readCoalescing} embedded ' +
        '${defaultSettings().networking.readCoalescing}`);\n'
      + '});\n',
  });
  const run = kopfRun(dir, 'handlers.ts');
  assert.match(run.stdout, /^run 0\.002 embedded 0$/m, run.stdout + run.stderr);
});

test('a server that cannot be reached at the start does not hold up a stop while peering is looked for', async (t) => {
  // Port 1 on loopback refuses connections: every request fails at once and is retried for about a minute.
  const dir = project({
    'handlers.ts': '',
    'kubeconfig.yaml': [
      'apiVersion: v1', 'kind: Config', 'current-context: c',
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
      'users: [{name: u, user: {token: t}}]', 'contexts: [{name: c, context: {cluster: c, user: u}}]',
    ].join('\n'),
  });
  // Without --standalone: peering is auto-detected, which asks discovery first.
  const kubeconfigPath = join(dir, 'kubeconfig.yaml');
  const op = runOperator({ files: ['handlers.ts'], args: ['-n', 'default'], cwd: dir, kubeconfigPath });
  t.after(() => op.stop());
  await op.waitFor('Request attempt #1/', { timeout: 60_000 });
  // A generous limit: only if the stop waited for every retry would the lookup's failure be logged.
  const exit = await op.stop({ signal: 'SIGINT', timeout: 180_000 });
  assert.equal(exit.exitCode, 0, exit.output);
  assert.doesNotMatch(exit.output, /Looking for the peering resources failed/);
});
