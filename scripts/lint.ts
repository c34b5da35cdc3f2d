/**
 * The project's lint rules, small and specific:
 * - relative imports name the `.ts` file (Node runs the sources directly);
 * - no `any` in the packages' code (runtime, generator, create) (use `unknown` and narrow);
 * - no `console.*` in the runtime's library code (use the operator's loggers);
 * - no focused or skipped tests (`.only`, `.skip`, `{ skip: … }`) counted as passing;
 * - lines of at most 120 characters, comments included (generated files excepted); a line that
 *   cannot wrap (a URL, a regular expression) says so with `lint-ignore`;
 * - the packages' command entries are copies of their one source (scripts/command-entries.ts).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ENTRY_SOURCE, driftedEntries } from './command-entries.ts';

const root = resolve(import.meta.dirname, '..');

function* sourceFiles(dir: string): Generator<string> {
  let entries: string[];
  try { entries = readdirSync(dir); } catch { return; }
  for (const entry of entries) {
    if (['node_modules', 'dist', 'generated', 'fixtures'].includes(entry) || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts')) yield path;
  }
}

const rules: { name: string; where: (rel: string) => boolean; re: RegExp }[] = [
  { name: 'relative import without .ts', where: () => true, re: /from\s+['"]\.{1,2}\/[^'"]*(?<!\.ts)['"]/ },
  {
    name: 'any type',
    where: (r) => /^(runtime|generator|create)\//.test(r),
    re: /(:\s*any\b|\bas\s+any\b|<any>|\bany\[\])/,
  },
  {
    name: 'console in library code',
    where: (r) => /^runtime\//.test(r) && !/^runtime\/(cli|testing)\//.test(r),
    re: /\bconsole\.(log|info|warn|error|debug)\(/,
  },
  {
    name: 'focused or skipped test',
    where: (r) => /\.test\.ts$/.test(r),
    re: /\b(it|test|describe)\.(only|skip|todo)\(|\{\s*skip:\s*(true|['"])/,
  },
];

const LINE_LIMIT = 120;

/** Files written by kopf-gen (the golden tests' expected outputs), not by hand. */
function isGenerated(rel: string): boolean {
  return /^test\/generator\/golden\/[^/]+\/expected\//.test(rel);
}

const problems: string[] = [];
for (const top of ['runtime', 'generator', 'create', 'test', 'examples', 'bench', 'scripts']) {
  for (const file of sourceFiles(join(root, top))) {
    const rel = relative(root, file);
    const lines = readFileSync(file, 'utf8').split('\n');
    const lengthChecked = !isGenerated(rel);
    lines.forEach((line, i) => {
      if (line.includes('lint-ignore')) return;
      if (lengthChecked && line.length > LINE_LIMIT) {
        problems.push(`${rel}:${i + 1}: line over ${LINE_LIMIT} characters (${line.length})`);
      }
      if (/^\s*(\/\/|\*)/.test(line)) return;
      for (const rule of rules)
        if (rule.where(rel) && rule.re.test(line)) problems.push(`${rel}:${i + 1}: ${rule.name}: ${line.trim()}`);
    });
  }
}
for (const entry of driftedEntries()) {
  problems.push(`${entry}: differs from its one source, ${ENTRY_SOURCE} (node scripts/command-entries.ts writes it)`);
}
if (problems.length) {
  console.error(`Lint failed (${problems.length}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('Lint: ok');
