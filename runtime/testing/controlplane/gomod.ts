/**
 * Kubernetes cannot be used as a plain Go dependency: its go.mod requires every staging module at
 * v0.0.0 and points them at ./staging. A wrapper module replaces each one with its published tag
 * (k8s.io/<m>@v0.<minor>.<patch>). The list is read from upstream's go.mod, never hard-coded, so a
 * version bump that adds a staging module needs no code change.
 */

export interface UpstreamGoMod {
  /** The `go` directive's version, e.g. `1.26.0`. */
  go: string | null;
  /** `godebug` settings, e.g. `default=go1.26`; they only take effect in the main module. */
  godebug: string[];
  /** Module paths replaced by a folder under ./staging. */
  staging: string[];
}

export function parseUpstreamGoMod(text: string): UpstreamGoMod {
  const lines = text.split('\n').map((line) => line.replace(/\/\/.*$/, '').trim());
  const go = lines.map((line) => /^go\s+(\S+)$/.exec(line)?.[1]).find((v) => v !== undefined) ?? null;
  const godebug: string[] = [];
  let inGodebugBlock = false;
  for (const line of lines) {
    if (inGodebugBlock) {
      if (line === ')') inGodebugBlock = false;
      else if (line) godebug.push(line);
    } else if (/^godebug\s*\($/.test(line)) {
      inGodebugBlock = true;
    } else {
      const single = /^godebug\s+(\S+)$/.exec(line);
      if (single) godebug.push(single[1]);
    }
  }
  const staging = [...text.matchAll(/^\s*(?:replace\s+)?(k8s\.io\/[A-Za-z0-9._-]+)\s+=>\s+\.\/staging\//gm)].map(
    (m) => m[1]
  );
  return { go, godebug, staging: [...new Set(staging)] };
}

/** The go.mod of the throw-away module that builds kube-apiserver and kubectl. */
export function kubernetesWrapperGoMod(upstream: UpstreamGoMod, kubernetesVersion: string): string {
  if (upstream.staging.length === 0) {
    throw new Error(
      `k8s.io/kubernetes@v${kubernetesVersion}'s go.mod lists no ./staging replacements; the build recipe no longer ` +
        `fits it`
    );
  }
  const stagingTag = `v0.${kubernetesVersion.split('.').slice(1).join('.')}`;
  return [
    'module example.invalid/kopf-kubernetes-build',
    '',
    ...(upstream.go ? [`go ${upstream.go}`, ''] : []),
    ...upstream.godebug.map((setting) => `godebug ${setting}`),
    '',
    'replace (',
    ...upstream.staging.map((module) => `\t${module} => ${module} ${stagingTag}`),
    ')',
    '',
  ].join('\n');
}

/** `-X` flags that make /version report the real version instead of upstream's placeholders. */
export function kubernetesVersionLdflags(kubernetesVersion: string, buildDate: string): string[] {
  const [major, minor] = kubernetesVersion.split('.');
  const flags: string[] = [];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    flags.push(
      `-X ${pkg}.gitVersion=v${kubernetesVersion}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
      `-X ${pkg}.gitCommit=unknown`,
      `-X ${pkg}.buildDate=${buildDate}`,
    );
  }
  return flags;
}
