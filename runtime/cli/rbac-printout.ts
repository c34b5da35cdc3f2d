/**
 * The child side of `kopf rbac` (rbac.ts): loads the operator's files and modules, derives what its
 * handlers need, and sends the YAML back; its stdout is the command's stderr, so that whatever the
 * files print stays out of the YAML. Usage errors are said on stderr and sent back as exit codes.
 */
import { stringify } from 'yaml';
import { getDefaultRegistry } from '../registry/registry.ts';
import { RbacError, operatorNeeds, rbacManifests, rbacResource, scopeNotes, type Need } from '../rbac/index.ts';
import { loadOperator } from './run.ts';

/** What `kopf rbac` was asked for, as plain data. */
export interface PrintoutRequest {
  files: string[];
  modules: string[];
  namespaces: string[];
  serviceAccount: { name: string; namespace: string };
  name: string | undefined;
  rules: string[];
  events: boolean;
  standalone: boolean | undefined;
  leaderElection: { namespace: string } | undefined;
  sharding: { namespace: string; ring?: string } | undefined;
  webhookManaged: string | boolean;
}

/** The YAML, or the exit code of why there is none (said on stderr). */
export type Printout = { yaml: string } | { code: number };

export async function printout(request: PrintoutRequest): Promise<Printout> {
  if (!(await loadOperator('rbac', request.files, request.modules))) return { code: 1 };
  const { namespaces, serviceAccount, name, events, standalone, leaderElection, sharding, webhookManaged } = request;
  let needs: Need[];
  try {
    const options = { namespaces, events, standalone, leaderElection, sharding, webhookManaged };
    needs = [...operatorNeeds(getDefaultRegistry(), options), ...request.rules.map(parseRule)];
  } catch (error) {
    if (!(error instanceof RbacError || error instanceof TypeError)) throw error;
    process.stderr.write(`kopf rbac: ${error.message}\n`);
    return { code: 2 };
  }
  if (!getDefaultRegistry().resourceHandlers.length && !getDefaultRegistry().webhookHandlers.length) {
    process.stderr.write('kopf rbac: no resource handlers are registered by these files: ' +
      'only the framework\'s own needs are printed.\n');
  }
  const manifests = rbacManifests(needs, { serviceAccount, name, namespaces });
  return { yaml: `${header(needs, namespaces)}${manifests.map((m) => stringify(m)).join('---\n')}` };
}

/** `get,list:pods`, `create:deployments.apps`, `get:pods/log` as a need. */
function parseRule(text: string): Need {
  const [verbs = '', target = ''] = text.split(':');
  const [name = '', subresource] = target.split('/');
  if (!verbs || !name || text.split(':').length !== 2) {
    throw new RbacError(`--rule '${text}': write it as VERBS:RESOURCE, e.g. get,list:pods.`);
  }
  const resource = rbacResource(name);
  return {
    group: resource.group, resource: subresource ? `${resource.plural}/${subresource}` : resource.plural,
    verbs: verbs.split(',').map((verb) => verb.trim()).filter(Boolean),
    clusterScoped: resource.clusterScoped, why: '--rule',
  };
}

/** What the printout grants, where and why, as YAML comments. */
function header(needs: readonly Need[], namespaces: readonly string[]): string {
  const lines = needs.map((need) => {
    const group = need.group ? ` (${need.group})` : '';
    const names = need.resourceNames ? ` named ${need.resourceNames.join(', ')}` : '';
    return `#   ${need.resource}${group}${names}: ${need.verbs.join(', ')} — ${need.why}`;
  });
  return [
    '# The RBAC of the operator, printed by `kopf rbac` from its handlers:',
    ...lines,
    '# The handlers\' own API calls are included only as declared with requires() or --rule.',
    ...scopeNotes(needs, namespaces).map((line) => `# ${line}`),
    '',
  ].join('\n');
}

if (import.meta.main) {
  process.once('message', (request) => {
    void printout(request as PrintoutRequest).then((result) => process.send?.(result, () => process.disconnect()));
  });
}
