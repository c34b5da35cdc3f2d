/**
 * A kubeconfig file is checked before it is read (by client-node, or by native-kubeconfig.ts).
 * Client-node's own errors quote the file around a YAML syntax error (the lines there may hold a
 * token or a key) and stumble over a field of the wrong type with a JavaScript message
 * ("….replace is not a function"). Here a file
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

/** A kubeconfig file's content, or why it cannot be used as it is. */
export type KubeConfigFile = { config: Record<string, unknown>; problem?: undefined } | { problem: string };

/** A checked kubeconfig file: where it is (paths in it are relative to it) and what it holds. */
export interface KubeConfigFileContent {
  path: string;
  config: Record<string, unknown>;
}

/** The kubeconfig file read and checked: its content, or why it cannot be used as it is. */
export function readKubeConfigFile(file: string): KubeConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { problem: `the file ${unreadable(error)}` };
  }
  return parseKubeConfigText(text);
}

/** The kubeconfig text parsed and checked: its content, or why it cannot be used as it is. */
export function parseKubeConfigText(text: string): KubeConfigFile {
  const lines = new LineCounter();
  // Merge keys as client-node's parser reads them; aliases are few in a kubeconfig, and capped.
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, merge: true });
  const [syntax] = document.errors;
  if (syntax) {
    const { line, col } = lines.linePos(syntax.pos[0]);
    return { problem: `not valid YAML at ${line}:${col}: ${reasonOf(syntax.message)}` };
  }
  // A tag this parser reads as a plain value is one client-node's parser refuses.
  const tag = document.warnings.find((warning) => warning.code === 'TAG_RESOLVE_FAILED');
  if (tag) {
    const { line, col } = lines.linePos(tag.pos[0]);
    const what = tagsCollection(text, tag.pos[1]) ? 'tag' : 'scalar tag';
    return { problem: `not valid YAML at ${line}:${col}: unknown ${what}` };
  }
  let config: unknown;
  try {
    config = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { problem: `not a usable kubeconfig: ${reasonOf((error as Error).message)}` };
  }
  const problem = shapeProblem(config);
  return problem ? { problem } : { config: config as Record<string, unknown> };
}

/** Whether what follows a tag (ending at `end`) is a collection: a flow one, or a block one on the next lines. */
function tagsCollection(text: string, end: number): boolean {
  const next = /[^ \t]|$/m.exec(text.slice(end));
  return next === null || next[0] === '' || next[0] === '{' || next[0] === '[' || next[0] === '\n';
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
