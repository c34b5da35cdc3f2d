/**
 * A kubeconfig file is checked before client-node reads it. Client-node's own errors quote the
 * file around a YAML syntax error (the lines there may hold a token or a key) and stumble over a
 * field of the wrong type with a JavaScript message ("….replace is not a function"). Here a file
 * that is not YAML is reported by reason and line:column only, and a field of the wrong type by
 * its path; no value of the file is ever part of a message.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { isMapping } from '../../structs/diffs.ts';
import { unreadable } from './credentials.ts';

type Kind = 'string' | 'boolean' | 'mapping' | 'strings';

/** The fields client-node reads, by where they are: a field of another type would be misread. */
const CLUSTER: Readonly<Record<string, Kind>> = {
  server: 'string', 'certificate-authority': 'string', 'certificate-authority-data': 'string',
  'insecure-skip-tls-verify': 'boolean', 'tls-server-name': 'string', 'proxy-url': 'string',
};
const USER: Readonly<Record<string, Kind>> = {
  token: 'string', 'token-file': 'string', username: 'string', password: 'string', as: 'string',
  'client-certificate': 'string', 'client-certificate-data': 'string',
  'client-key': 'string', 'client-key-data': 'string', exec: 'mapping', 'auth-provider': 'mapping',
};
const EXEC: Readonly<Record<string, Kind>> = { command: 'string', args: 'strings', apiVersion: 'string' };
const CONTEXT: Readonly<Record<string, Kind>> = { cluster: 'string', user: 'string', namespace: 'string' };

/** Why the kubeconfig file cannot be used as it is, or `undefined` if it can. */
export function kubeConfigFileProblem(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return `the file ${unreadable(error)}`;
  }
  return kubeConfigTextProblem(text);
}

/** Why the kubeconfig text cannot be used as it is, or `undefined` if it can. */
function kubeConfigTextProblem(text: string): string | undefined {
  const lines = new LineCounter();
  // Merge keys as client-node's parser reads them; aliases are few in a kubeconfig, and capped.
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, merge: true });
  const [syntax] = document.errors;
  if (syntax) {
    const { line, col } = lines.linePos(syntax.pos[0]);
    return `not valid YAML at ${line}:${col}: ${reasonOf(syntax.message)}`;
  }
  let config: unknown;
  try {
    config = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return `not a usable kubeconfig: ${reasonOf((error as Error).message)}`;
  }
  return shapeProblem(config);
}

/** A parser's message up to any quoted part of the text (which may be a piece of a secret). */
function reasonOf(message: string): string {
  return message.split(': ')[0]!.trim();
}

function shapeProblem(config: unknown): string | undefined {
  if (config === null || config === undefined) return 'the file is empty';
  if (!isMapping(config)) return 'not a kubeconfig: a mapping with clusters, users and contexts is expected';
  return fieldProblem(config, 'current-context', 'string')
    ?? listProblem(config, 'clusters', 'cluster', CLUSTER)
    ?? listProblem(config, 'users', 'user', USER)
    ?? listProblem(config, 'contexts', 'context', CONTEXT)
    ?? execProblems(config);
}

/** `clusters`, `users` or `contexts`: a list of mappings, each with a name and its fields of the right kinds. */
function listProblem(
  config: Record<string, unknown>, list: string, entry: string, fields: Readonly<Record<string, Kind>>,
): string | undefined {
  const items = config[list];
  if (items === undefined || items === null) return undefined;
  if (!Array.isArray(items)) return `${list} must be a list`;
  for (const [index, item] of items.entries()) {
    const where = `${list}[${index}]`;
    if (!isMapping(item)) return `${where} must be a mapping with a name and a ${entry}`;
    const problem = fieldProblem(item, 'name', 'string', where);
    if (problem) return problem;
    const body = item[entry];
    if (body === undefined || body === null) continue;
    if (!isMapping(body)) return `${where}.${entry} must be a mapping`;
    for (const [field, kind] of Object.entries(fields)) {
      const wrong = fieldProblem(body, field, kind, `${where}.${entry}`);
      if (wrong) return wrong;
    }
  }
  return undefined;
}

/** An exec plugin's command and arguments, wherever a user names one. */
function execProblems(config: Record<string, unknown>): string | undefined {
  const users = Array.isArray(config.users) ? config.users : [];
  for (const [index, item] of users.entries()) {
    const exec = isMapping(item) && isMapping(item.user) ? item.user.exec : undefined;
    if (!isMapping(exec)) continue;
    for (const [field, kind] of Object.entries(EXEC)) {
      const wrong = fieldProblem(exec, field, kind, `users[${index}].user.exec`);
      if (wrong) return wrong;
    }
  }
  return undefined;
}

function fieldProblem(holder: Record<string, unknown>, field: string, kind: Kind, where?: string): string | undefined {
  const value = holder[field];
  if (value === undefined || value === null || isKind(value, kind)) return undefined;
  const path = where ? `${where}.${field}` : field;
  return `${path} must be ${kind === 'strings' ? 'a list of strings' : `a ${kind}`}`;
}

function isKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'mapping': return isMapping(value);
    case 'strings': return Array.isArray(value) && value.every((item) => typeof item === 'string');
    default: return typeof value === kind;
  }
}
