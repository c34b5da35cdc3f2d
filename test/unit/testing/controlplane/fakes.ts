/** Fake executables and a fake `go` for tests of the binary lookup and the build, without Go. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha512Of, writeRecord, type Digests } from '../../../../runtime/testing/controlplane/verified.ts';
import type { BinaryName } from '../../../../runtime/testing/controlplane/versions.ts';

const created: string[] = [];
process.on('exit', () => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder, removed when the test file's process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `kopf-unit-${prefix}-`));
  created.push(dir);
  return dir;
}

/** Fake binaries as kopf leaves them in its cache: with their digests recorded. */
export function fakeVerified(dir: string, names: readonly BinaryName[]): void {
  const digests: Digests = {};
  for (const name of names) digests[name] = sha512Of(fakeExecutable(dir, name));
  writeRecord(dir, digests);
}

export function fakeExecutable(dir: string, name: string, script = 'echo fake'): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * A `go` that answers the build's commands: `mod download -json` points at a small go.mod,
 * `build -o PATH` writes an executable there. FAKE_GO_FAIL=<subcommand> makes that one fail;
 * FAKE_GO_SLEEP=<seconds> slows `build` down.
 */
export function fakeGo(dir: string): string {
  const goMod = join(dir, 'upstream.mod');
  writeFileSync(goMod, 'module k8s.io/kubernetes\n\ngo 1.26.0\n\nreplace k8s.io/api => ./staging/src/k8s.io/api\n');
  fakeExecutable(dir, 'go', `
echo "fake go $*" >&2
[ "$FAKE_GO_FAIL" = "$1" ] && { echo "go: simulated failure of go $1" >&2; exit 1; }
case "$1" in
  version) echo "go version go1.26.8 fake";;
  mod) printf '{"Path":"k8s.io/kubernetes","Version":"v1.36.3","GoMod":"%s"}\\n' "${goMod}";;
  build)
    [ -n "$FAKE_GO_SLEEP" ] && sleep "$FAKE_GO_SLEEP"
    out=""
    while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
    printf '#!/bin/sh\\necho built\\n' > "$out" && chmod +x "$out";;
esac`);
  return dir;
}
