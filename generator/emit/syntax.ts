/**
 * Small pieces of TypeScript text: string literals, property keys, literal types, JSDoc blocks.
 * Output is single-quoted, 2-space indented, LF-only, like the rest of the project.
 */
import type { Json } from '../input/json.ts';

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A single-quoted string literal. */
export function stringLiteral(value: string): string {
  let out = "'";
  for (const ch of value) {
    if (ch === "'" || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (
      ch < ' ' || ch === '\x7f' || ch === '\u2028' || ch === '\u2029' || (
        ch.length === 1 && ch >= '\ud800' && ch <= '\udfff'
      )
    ) out += `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}'`;
}

/**
 * A property key as written in a type: bare when it is a plain identifier, quoted otherwise.
 * `__proto__` and `constructor` are quoted too: they are ordinary data keys here, never special.
 */
export function propertyKey(name: string): string {
  return PLAIN_KEY.test(name) && name !== '__proto__' && name !== 'constructor' ? name : stringLiteral(name);
}

/** A JSON scalar as a literal type; undefined for values that have no literal type. */
export function literalType(value: Json): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Wraps a union in parentheses where an array suffix follows it. */
export function arrayOf(type: string): string {
  return /[|&]/.test(type) && !/^\{.*\}$/s.test(type) ? `(${type})[]` : `${type}[]`;
}

/** JSDoc text may contain anything but the comment terminator. */
function escapeComment(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}

/** A JSDoc block from paragraphs (blank-line separated) and tag lines, at an indentation. */
export function jsdoc(indent: string, body: readonly string[], tags: readonly string[] = []): string {
  const lines: string[] = [];
  for (const paragraph of body) {
    const text = paragraph.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd());
    while (text.length && !text[0]) text.shift();
    while (text.length && !text[text.length - 1]) text.pop();
    if (!text.length) continue;
    if (lines.length) lines.push('');
    lines.push(...text);
  }
  if (tags.length && lines.length) lines.push('');
  lines.push(...tags.map((t) => t.replace(/\r\n?|\n/g, ' ')));
  if (!lines.length) return '';
  const escaped = lines.map(escapeComment);
  if (escaped.length === 1 && escaped[0]!.length + indent.length < 100) return `${indent}/** ${escaped[0]} */\n`;
  return `${indent}/**\n${escaped.map((l) => (l ? `${indent} * ${l}` : `${indent} *`)).join('\n')}\n${indent} */\n`;
}
