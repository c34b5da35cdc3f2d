import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  kubernetesVersionLdflags,
  kubernetesWrapperGoMod,
  parseUpstreamGoMod,
} from '../../../../runtime/testing/controlplane/gomod.ts';

const UPSTREAM = `// generated
module k8s.io/kubernetes

go 1.26.0

godebug default=go1.26

require (
	github.com/example/dep v1.2.3
	k8s.io/api v0.0.0
)

replace (
	github.com/example/other => github.com/example/fork v0.1.0
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/cri-streaming => ./staging/src/k8s.io/cri-streaming // a comment
)

replace k8s.io/client-go => ./staging/src/k8s.io/client-go
`;

test('reads the go version, godebug settings and every ./staging replacement, nothing else', () => {
  const parsed = parseUpstreamGoMod(UPSTREAM);
  assert.equal(parsed.go, '1.26.0');
  assert.deepEqual(parsed.godebug, ['default=go1.26']);
  assert.deepEqual(parsed.staging, ['k8s.io/api', 'k8s.io/cri-streaming', 'k8s.io/client-go']);
});

test('reads godebug blocks too', () => {
  const parsed = parseUpstreamGoMod('module x\n\ngodebug (\n\tdefault=go1.23\n\twinsymlink=0\n)\n');
  assert.deepEqual(parsed.godebug, ['default=go1.23', 'winsymlink=0']);
  assert.equal(parsed.go, null);
});

test('the wrapper module pins each staging module to its published v0.<minor>.<patch> tag', () => {
  const text = kubernetesWrapperGoMod(parseUpstreamGoMod(UPSTREAM), '1.36.3');
  assert.match(text, /^go 1\.26\.0$/m);
  assert.match(text, /^godebug default=go1\.26$/m);
  assert.match(text, /^\tk8s\.io\/api => k8s\.io\/api v0\.36\.3$/m);
  assert.match(text, /^\tk8s\.io\/cri-streaming => k8s\.io\/cri-streaming v0\.36\.3$/m);
  assert.match(text, /^\tk8s\.io\/client-go => k8s\.io\/client-go v0\.36\.3$/m);
  assert.doesNotMatch(text, /github\.com/);
});

test('a go.mod without staging replacements is refused: the recipe would not fit it', () => {
  assert.throws(
    () => kubernetesWrapperGoMod(parseUpstreamGoMod('module x\n'), '1.36.3'),
    /no \.\/staging replacements/,
  );
});

test('version ldflags stamp both version packages consistently', () => {
  const flags = kubernetesVersionLdflags('1.36.3', '2026-07-22T18:07:38Z');
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    assert.ok(flags.includes(`-X ${pkg}.gitVersion=v1.36.3`));
    assert.ok(flags.includes(`-X ${pkg}.gitMajor=1`));
    assert.ok(flags.includes(`-X ${pkg}.gitMinor=36`));
    assert.ok(flags.includes(`-X ${pkg}.buildDate=2026-07-22T18:07:38Z`));
  }
});
