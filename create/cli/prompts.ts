/**
 * The questions asked in a terminal, for whatever the command line left open: folder, kind, API
 * group, version and scope, each with the default filled in and checked as it is typed.
 */
import { cancel, intro, isCancel, select, text } from '@clack/prompts';
import { DEFAULTS, resourceNames, validate } from '../project/options.ts';
import type { ProjectOptions, Scope } from '../project/options.ts';

export type Answers = Partial<Omit<ProjectOptions, 'name'>>;

/** Asks for each missing value; `undefined` when the user cancels (Ctrl-C, Esc). */
export async function ask(given: Answers): Promise<Required<Answers> | undefined> {
  intro('create-kopf-operator');
  const dir = given.dir
    ?? await askText('Folder for the new project', DEFAULTS.dir, (v) => (v.trim() ? undefined : 'a folder is needed'));
  if (dir === undefined) return cancelled();
  const kind = given.kind
    ?? await askText('Kind of the custom resource', DEFAULTS.kind, (v) => problemWith({ kind: v }));
  if (kind === undefined) return cancelled();
  const group = given.group ?? await askText('API group', DEFAULTS.group, (v) => problemWith({ group: v }));
  if (group === undefined) return cancelled();
  const version = given.version ?? await askText('API version', DEFAULTS.version, (v) => problemWith({ version: v }));
  if (version === undefined) return cancelled();
  const scope = given.scope ?? await askScope(kind);
  if (scope === undefined) return cancelled();
  return { dir, kind, group, version, scope };
}

type Check = (value: string) => string | undefined;

async function askText(message: string, initialValue: string, check: Check): Promise<string | undefined> {
  const value = await text({ message, initialValue, validate: (v) => check(v ?? '') });
  return isCancel(value) ? undefined : value.trim();
}

async function askScope(kind: string): Promise<Scope | undefined> {
  const plural = resourceNames({ ...DEFAULTS, name: 'x', kind }).plural;
  const value = await select<Scope>({
    message: 'Scope',
    initialValue: DEFAULTS.scope,
    options: [
      { value: 'Namespaced', label: 'Namespaced', hint: `${plural} live in namespaces` },
      { value: 'Cluster', label: 'Cluster', hint: `${plural} belong to the whole cluster` },
    ],
  });
  return isCancel(value) ? undefined : value;
}

/** The problem with one value, checked as part of otherwise default options. */
function problemWith(value: Partial<ProjectOptions>): string | undefined {
  return validate({ ...DEFAULTS, name: 'x', ...value })[0]?.replace(/^--[a-z-]+: /, '');
}

function cancelled(): undefined {
  cancel('Nothing was created.');
  return undefined;
}
