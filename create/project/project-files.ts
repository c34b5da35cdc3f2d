/**
 * The project's files, rendered from the handlebars templates in the repository's
 * `templates/project/` (copied into the published package): one template per file, named after the
 * file it makes, with the derived names filled in where a path depends on the resource.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import type { DependencySource } from './dependencies.ts';
import type { ProjectOptions, ResourceNames } from './options.ts';
import { resourceNames, withArticle } from './options.ts';

const TEMPLATES = fileURLToPath(new URL('../../templates/project/', import.meta.url));

/**
 * The namespace that the operator of a namespaced kind serves: where kubectl, the sample and the
 * test put objects. Served by name, the operator's RBAC is a Role there, not a ClusterRole.
 */
const SERVED_NAMESPACE = 'default';

/** Template (relative to templates/project/, without `.hbs`) → the file it makes in the project. */
function fileMap(names: ResourceNames): [string, string][] {
  return [
    ['package.json', 'package.json'],
    ['tsconfig.json', 'tsconfig.json'],
    ['tsconfig.build.json', 'tsconfig.build.json'],
    // npm leaves `.gitignore` and `.npmrc` out of packages, so the templates carry them without the dot.
    ['gitignore', '.gitignore'],
    ['npmrc', '.npmrc'],
    ['dockerignore', '.dockerignore'],
    ['README.md', 'README.md'],
    ['Dockerfile', 'Dockerfile'],
    ['crds/crd.yaml', `crds/${names.plural}.yaml`],
    ['samples/sample.yaml', `samples/${names.singular}.yaml`],
    ['src/operator.ts', 'src/operator.ts'],
    ['src/handlers/handlers.ts', `src/handlers/${names.group}/${names.plural}.ts`],
    ['test/operator.test.ts', `test/${names.singular}.test.ts`],
    ['deploy/namespace.yaml', 'deploy/namespace.yaml'],
    ['deploy/rbac.yaml', 'deploy/rbac.yaml'],
    ['deploy/peering-crds.yaml', 'deploy/peering-crds.yaml'],
    ['deploy/peering.yaml', 'deploy/peering.yaml'],
    ['deploy/deployment.yaml', 'deploy/deployment.yaml'],
    ['deploy/sharding-policy.yaml', 'deploy/sharding-policy.yaml'],
    ['deploy/network-policy.yaml', 'deploy/network-policy.yaml'],
    ['deploy/monitoring/servicemonitor.yaml', 'deploy/monitoring/servicemonitor.yaml'],
    ['deploy/health.lua', 'deploy/health.lua'],
  ];
}

/**
 * Files copied as they are, not rendered: the dashboard's legends are Grafana's own `{{label}}`
 * templates (and the file is the one in docs/, byte for byte).
 */
const COPIED = ['deploy/monitoring/grafana-dashboard.json'];

/** Writes every file of the project; returns their paths relative to the project, in order. */
export function renderProject(options: ProjectOptions, dependencies: DependencySource): string[] {
  const names = resourceNames(options);
  const context = {
    ...names,
    aKind: withArticle(names.kind),
    name: options.name,
    appName: appNameOf(options.name),
    servedNamespace: SERVED_NAMESPACE,
    dependencies: { kopf: dependencies.kopf, kopfGen: dependencies.kopfGen },
    vendored: dependencies.vendored.size > 0,
  };
  const written: string[] = [];
  for (const [template, target] of fileMap(names)) {
    const source = readFileSync(join(TEMPLATES, `${template}.hbs`), 'utf8');
    // Nothing here is HTML: values go in as they are.
    const text = Handlebars.compile(source, { noEscape: true, strict: true })(context);
    const path = join(options.dir, target);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    written.push(target);
  }
  for (const file of COPIED) {
    const path = join(options.dir, file);
    mkdirSync(dirname(path), { recursive: true });
    copyFileSync(join(TEMPLATES, file), path);
    written.push(file);
  }
  return written;
}

/** A Kubernetes name for the operator's namespace, account and image: the package name without its scope. */
function appNameOf(name: string): string {
  return name.replace(/^@[^/]+\//, '').replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63) || 'operator';
}
