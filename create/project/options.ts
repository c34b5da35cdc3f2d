/**
 * What a new project is made of: its folder and package name, and the one custom resource it starts
 * with (kind, API group, version, scope). Every name derived from them is derived here, once.
 */
import { basename } from 'node:path';

export type Scope = 'Namespaced' | 'Cluster';

export interface ProjectOptions {
  /** Where the project goes; must not exist or be empty. */
  readonly dir: string;
  /** The npm package name (the folder's name unless given). */
  readonly name: string;
  readonly kind: string;
  readonly group: string;
  readonly version: string;
  readonly scope: Scope;
}

export const DEFAULTS = {
  dir: 'my-operator', kind: 'Widget', group: 'example.com', version: 'v1', scope: 'Namespaced',
} as const;

const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;
const DNS_NAME_WITH_DOTS = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const API_VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const NPM_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** Names derived from the kind, as a CRD and kopf-gen spell them. */
export interface ResourceNames {
  readonly kind: string;
  readonly singular: string;
  readonly plural: string;
  readonly group: string;
  readonly version: string;
  readonly scope: Scope;
  readonly apiVersion: string;
  /** `<plural>.<group>`: the CRD's name. */
  readonly crdName: string;
  readonly namespaced: boolean;
}

export function resourceNames(options: ProjectOptions): ResourceNames {
  const singular = options.kind.toLowerCase();
  const plural = pluralOf(singular);
  return {
    kind: options.kind, singular, plural, group: options.group, version: options.version, scope: options.scope,
    apiVersion: `${options.group}/${options.version}`, crdName: `${plural}.${options.group}`,
    namespaced: options.scope === 'Namespaced',
  };
}

/** English plural of a lower-case kind, as kubebuilder derives it; the CRD can be edited where it guesses wrong. */
export function pluralOf(singular: string): string {
  if (/(s|x|z|ch|sh)$/.test(singular)) return `${singular}es`;
  if (/[^aeiou]y$/.test(singular)) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/**
 * The kind with its indefinite article, chosen by sound as a reader says the kind: `an
 * EphemeralVolumeClaim`, `a User`; a kind that starts with an initialism by its first letter's
 * name (`an HTTPRoute`, `a URLMap`).
 */
export function withArticle(kind: string): string {
  return `${startsWithVowelSound(kind) ? 'an' : 'a'} ${kind}`;
}

/** Letters whose names start with a vowel sound: "ay", "ee", "ef", "aitch", "eye", "el", … */
const VOWEL_SOUNDING_LETTERS = 'AEFHILMNORSX';
/** Vowel letters sounding as "you" or "wuh" (a Unit, a User, a Euro, a OneShot), but not "un-" (an Uninstall). */
const CONSONANT_SOUNDING_VOWELS = /^(uni(?!n)|us[aeu]|uti|ur[aeio]|eu|ewe|one|once)/;
/** A silent h (an Hour). */
const SILENT_H = /^(hour|honest|honou?r|heir)/;

function startsWithVowelSound(word: string): boolean {
  if (/^[A-Z][A-Z0-9]/.test(word)) return VOWEL_SOUNDING_LETTERS.includes(word[0]!);
  const lower = word.toLowerCase();
  if (CONSONANT_SOUNDING_VOWELS.test(lower)) return false;
  return SILENT_H.test(lower) || /^[aeiou]/.test(lower);
}

/** A problem with each value that is wrong, in the words of the option that sets it; empty when all are right. */
export function validate(options: ProjectOptions): string[] {
  const problems: string[] = [];
  if (!KIND.test(options.kind)) {
    problems.push(`--kind: "${options.kind}" must be UpperCamelCase letters and digits, e.g. Widget`);
  }
  if (!DNS_NAME_WITH_DOTS.test(options.group) || options.group.length > 253) {
    problems.push(`--group: "${options.group}" must be a DNS name with at least one dot, e.g. example.com`);
  }
  if (!API_VERSION.test(options.version)) {
    problems.push(`--api-version: "${options.version}" must be like v1, v1beta1 or v2alpha1`);
  }
  if (options.scope !== 'Namespaced' && options.scope !== 'Cluster') {
    problems.push(`--scope: "${String(options.scope)}" must be Namespaced or Cluster`);
  }
  if (!NPM_NAME.test(options.name) || options.name.length > 214) {
    problems.push(`--name: "${options.name}" is not a valid npm package name (lower case, no spaces)`);
  }
  return problems;
}

/** The package name a folder suggests: its base name in lower case, other characters as dashes. */
export function packageNameOf(dir: string): string {
  return basename(dir).toLowerCase().replace(/[^a-z0-9-._~]+/g, '-').replace(/^[-._]+|[-.]+$/g, '') || 'my-operator';
}
