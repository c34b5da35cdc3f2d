/**
 * The benchmarks' command lines, read one way: every option has a default whose type says how it
 * is read (a number, a flag, text; `undefined` for text that may be left out), and a number that
 * is not one is refused before anything starts, rather than running a benchmark with `NaN` objects.
 */
import { parseArgs } from 'node:util';

type Defaults = Record<string, number | string | boolean | undefined>;

/** The options as read: numbers for numeric defaults, flags for boolean ones, text for the rest. */
export type Options<D extends Defaults> = {
  -readonly [K in keyof D]: D[K] extends number ? number
    : D[K] extends boolean ? boolean
      : D[K] extends string ? string
        : string | undefined;
};

/** Reads `--name value` and `--flag` options as `defaults` describes them; an unknown option is an error. */
export function benchOptions<const D extends Defaults>(defaults: D, args = process.argv.slice(2)): Options<D> {
  if (args.includes('--help')) {
    process.stdout.write(optionsHelp(defaults));
    process.exit(0);
  }
  const spec: Record<string, { type: 'string' | 'boolean'; default?: string | boolean }> = {};
  for (const [name, value] of Object.entries(defaults)) {
    if (typeof value === 'boolean') spec[name] = { type: 'boolean', default: value };
    else spec[name] = value === undefined ? { type: 'string' } : { type: 'string', default: String(value) };
  }
  const { values } = parseArgs({ args, options: spec, strict: true });
  const options: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    options[name] = typeof defaults[name] === 'number' ? numberOption(name, value as string) : value;
  }
  return options as Options<D>;
}

/** The options with their defaults, one a line; what a benchmark measures is said at the top of its file. */
export function optionsHelp(defaults: Defaults): string {
  const lines = Object.entries(defaults).map(([name, value]) => {
    if (typeof value === 'boolean') return `  --${name}`;
    if (value === undefined || value === '') return `  --${name} TEXT (none by default)`;
    return `  --${name} ${value}`;
  });
  return `Options, with their defaults:\n${lines.join('\n')}\n`;
}

function numberOption(name: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new Error(`--${name} takes a number, not '${text}'`);
  return value;
}

/** The words of an option that passes arguments on (`--operator-args '--quiet --verbose'`). */
export function words(text: string): string[] {
  return text.split(' ').filter(Boolean);
}

/** The contestants named in a comma-separated list, in its order; an unknown name is an error that lists them. */
export function chosen<T>(list: string, known: Readonly<Record<string, T>>): T[] {
  return list.split(',').map((name) => {
    const key = name.trim();
    if (!Object.hasOwn(known, key)) {
      throw new Error(`Unknown contestant '${key}': use ${Object.keys(known).join(', ')}`);
    }
    return known[key]!;
  });
}
