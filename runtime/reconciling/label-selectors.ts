/**
 * Label selectors as the API server reads them (`a=b`, `a==b`, `a!=b`, `a in (b,c)`, `a notin (b)`,
 * `a`, `!a`, joined by commas), matched against labels in memory: for reads of the reconciler's
 * cache, which must select what a LIST with the same selector would.
 */

type Requirement = (labels: Readonly<Record<string, string>>) => boolean;

export class LabelSelectorError extends Error {
  constructor(selector: string, why: string) {
    super(`Not a label selector: '${selector}': ${why}.`);
    this.name = 'LabelSelectorError';
  }
}

/** A function that tells whether labels match `selector`; throws `LabelSelectorError` for a malformed one. */
export function labelMatcher(selector: string): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  const requirements = splitRequirements(selector).map((text) => requirementOf(text, selector));
  return (labels) => requirements.every((requirement) => requirement(labels ?? {}));
}

/** The requirements, split at the commas outside parentheses. */
function splitRequirements(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0, start = 0;
  for (let i = 0; i < selector.length; i++) {
    const char = selector[i];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) { parts.push(selector.slice(start, i)); start = i + 1; }
  }
  parts.push(selector.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

const SET = /^([^\s!=(),]+)\s+(in|notin)\s*\(([^()]*)\)$/;
const EQUALITY = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/;
const EXISTS = /^(!?)\s*([^\s!=(),]+)$/;

function requirementOf(text: string, selector: string): Requirement {
  const set = SET.exec(text);
  if (set) {
    const [, key, operator, list] = set as unknown as [string, string, string, string];
    const values = new Set(list.split(',').map((value) => value.trim()));
    return operator === 'in'
      ? (labels) => Object.hasOwn(labels, key) && values.has(labels[key]!)
      : (labels) => !(Object.hasOwn(labels, key)) || !values.has(labels[key]!);
  }
  const equality = EQUALITY.exec(text);
  if (equality) {
    const [, key, operator, value] = equality as unknown as [string, string, string, string];
    return operator === '!=' ? (labels) => labels[key] !== value : (labels) => labels[key] === value;
  }
  const exists = EXISTS.exec(text);
  if (exists) {
    const [, not, key] = exists as unknown as [string, string, string];
    return not ? (labels) => !(Object.hasOwn(labels, key)) : (labels) => Object.hasOwn(labels, key);
  }
  throw new LabelSelectorError(selector, `cannot read '${text}'`);
}
