/**
 * The names of a CRD as the API server checks them (apiextensions validation): they become
 * folder and file names, import specifiers, identifiers and string literals in what kopf-gen
 * writes, so a name the API server would refuse must never get that far.
 */
import { shown } from '../diagnostics/diagnostic.ts';

/** At most 63 characters: lowercase letters, digits and `-`, starting with a letter, ending with an alphanumeric. */
const DNS1035_LABEL = /^[a-z](?:[-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const MAX_LABEL = 63;
const MAX_SUBDOMAIN = 253;

/**
 * Why a value is not a DNS-1035 label (plural, singular, short names, categories, versions);
 * undefined when it is one.
 */
export function dns1035Problem(value: string): string | undefined {
  if (value.length <= MAX_LABEL && DNS1035_LABEL.test(value)) return undefined;
  return `${shown(value)} is not a DNS-1035 label: at most ${MAX_LABEL} lowercase letters, digits and '-', `
    + 'starting with a letter and ending with a letter or digit';
}

/** Why a kind or list kind is not one: the API server checks its lowercase form as a DNS-1035 label. */
export function kindProblem(value: string): string | undefined {
  if (value.length <= MAX_LABEL && DNS1035_LABEL.test(value.toLowerCase())) return undefined;
  return `${shown(value)} is not a valid kind: at most ${MAX_LABEL} letters, digits and '-', `
    + 'starting with a letter and ending with a letter or digit';
}

/** Why a value is not an API group: a DNS-1123 subdomain with at least one dot, as the API server requires. */
export function groupProblem(value: string): string | undefined {
  const labels = value.split('.');
  const valid = value.length <= MAX_SUBDOMAIN && labels.length >= 2
    && labels.every((label) => label.length <= MAX_LABEL && DNS1123_LABEL.test(label));
  if (valid) return undefined;
  return `${shown(value)} is not a valid group: a DNS subdomain with at least one dot (such as example.com), `
    + `of lowercase letters, digits, '-' and '.', at most ${MAX_SUBDOMAIN} characters`;
}
