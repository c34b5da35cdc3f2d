/**
 * A checkout on the Node a user has: each command, run by a Node older than the floor (Node 20, and
 * the last release before the floor), stops at once with a message naming the Node it needs and the
 * fix, and exit code 1 — as the package's bin, and as npm links it (a symlink on PATH run through
 * its shebang). On the floor it runs. At the root, `npx` runs the commands on the pinned Node,
 * whatever Node is on PATH. (The packed commands: pack.test.ts; a scaffolded project: scaffold.test.ts.)
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { ROOT, cachedNode, floorMessage, ok, run } from './packages.ts';

const FLOOR_VERSION = '22.19.0';
const OLD_VERSIONS = ['20.19.5', '22.18.0'];
const PACKAGES = { kopf: 'runtime', 'kopf-gen': 'generator', 'create-kopf-operator': 'create' } as const;
type Command = keyof typeof PACKAGES;
const COMMANDS = Object.keys(PACKAGES) as Command[];

interface Manifest { version: string; bin: Record<string, string>; engines: { node: string } }
const manifest = (command: Command): Manifest =>
  JSON.parse(readFileSync(join(ROOT, PACKAGES[command], 'package.json'), 'utf8')) as Manifest;
const binOf = (command: Command): string => join(ROOT, PACKAGES[command], manifest(command).bin[command]);

const nodes = new Map<string, string>();
before(async () => {
  for (const version of [FLOOR_VERSION, ...OLD_VERSIONS]) nodes.set(version, await cachedNode(version));
});

test('the floor is the same in the three packages and the workspace', () => {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
  for (const command of COMMANDS) assert.equal(manifest(command).engines.node, root.engines.node);
  assert.equal(root.engines.node, `>=${FLOOR_VERSION.replace(/\.0$/, '')}`);
});

test('the three commands have one entry: the same file, named after its package', () => {
  const [first, ...others] = COMMANDS.map((command) => readFileSync(binOf(command), 'utf8'));
  for (const other of others) assert.equal(other, first);
});

for (const version of OLD_VERSIONS) {
  test(`on Node ${version}, every command of a checkout stops with the Node it needs, exit 1`, async () => {
    const node = nodes.get(version) ?? '';
    for (const command of COMMANDS) {
      const floor = manifest(command).engines.node.replace(/^>=/, '');
      const result = await run(node, [binOf(command), '--help'], { cwd: ROOT });
      assert.equal(result.status, 1, `${command} on Node ${version}:\n${result.stdout}\n${result.stderr}`);
      assert.equal(result.stdout, '');
      assert.equal(result.stderr, floorMessage(command, floor, node, version));
    }
  });
}

test('linked as npm links them (a symlink on PATH, run through its shebang), the commands stop too', async () => {
  const version = OLD_VERSIONS[0];
  const node = nodes.get(version) ?? '';
  const links = mkdtempSync(join(tmpdir(), 'kopf-links-'));
  try {
    for (const command of COMMANDS) symlinkSync(binOf(command), join(links, command));
    const env = { PATH: [dirname(node), links, process.env.PATH ?? ''].join(delimiter) };
    for (const command of COMMANDS) {
      const result = await run(command, ['--version'], { cwd: tmpdir(), env });
      assert.equal(result.status, 1, `${command}:\n${result.stdout}\n${result.stderr}`);
      assert.match(result.stderr, new RegExp(`^${command} needs Node 22\\.19 or newer; this is Node ${version} \\(`));
    }
  } finally {
    rmSync(links, { recursive: true, force: true });
  }
});

test('on the floor, every command of a checkout runs', async () => {
  const node = nodes.get(FLOOR_VERSION) ?? '';
  for (const command of COMMANDS) {
    const result = await ok(node, [binOf(command), '--version'], { cwd: ROOT });
    assert.equal(result.stdout, `${manifest(command).version}\n`);
    assert.equal(result.stderr, '');
  }
  const help = await ok(node, [binOf('kopf'), '--help'], { cwd: ROOT });
  assert.match(help.stdout, /^Usage: kopf <command>/);
});

test('at the root, npx runs the commands on the pinned Node, whatever Node is on PATH', async () => {
  const env = { PATH: [dirname(nodes.get(OLD_VERSIONS[0]) ?? ''), process.env.PATH ?? ''].join(delimiter) };
  const pinned = (
    JSON.parse(readFileSync(join(ROOT, 'node_modules', 'node', 'package.json'), 'utf8')) as Manifest
  ).version;
  const node = await ok('npm', ['exec', '--', 'node', '--version'], { cwd: ROOT, env });
  assert.equal(node.stdout.trim(), `v${pinned}`);
  for (const command of COMMANDS) {
    const result = await ok('npx', [command, '--version'], { cwd: ROOT, env });
    assert.equal(result.stdout.trim(), manifest(command).version);
  }
});
