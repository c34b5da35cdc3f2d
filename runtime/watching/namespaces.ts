/**
 * Which namespaces an operator serves, from `--namespace` patterns as Kopf reads them: each
 * pattern is comma-separated globs (`*`, `?`), `!glob` excludes; the first glob decides, later
 * ones exclude from it or re-include what it matched; several patterns add up.
 */

/** True if a pattern needs the cluster's namespaces to be listed (it is not a plain name). */
export function isGlob(pattern: string): boolean {
  return /[*?!,]/.test(pattern);
}

export function matchesNamespace(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => matchesPattern(name, pattern));
}

function matchesPattern(name: string, pattern: string): boolean {
  const globs = pattern.split(',').map((g) => g.trim()).filter(Boolean);
  if (!globs.length) return false;
  const [first, ...rest] = globs[0].startsWith('!') ? ['*', ...globs] : globs;
  const firstMatched = globMatches(name, first);
  let matched = firstMatched;
  for (const glob of rest) {
    if (glob.startsWith('!')) { if (globMatches(name, glob.slice(1))) matched = false; }
    else if (firstMatched && globMatches(name, glob)) matched = true;
  }
  return matched;
}

function globMatches(name: string, glob: string): boolean {
  const re = new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
  return re.test(name);
}
