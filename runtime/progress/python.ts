/**
 * Text exactly as Python writes it, where Kopf's output is part of the contract.
 *
 * JSON exactly as Python's `json.dumps(value, separators=(',', ':'))` writes it, which is what
 * Kopf stores in annotations: non-ASCII and DEL escaped as `\uXXXX` (lowercase, surrogate pairs
 * for astral characters), floats as Python's `repr` (`1e-05`, not `0.00001`).
 *
 * What cannot match: a float with an integral value (`1.0`) reaches JavaScript as `1` and is
 * written so; integer-like object keys are ordered first by JavaScript objects themselves.
 * Neither changes what the value means, and Kopf compares stored values structurally.
 */

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f',
};

/**
 * Python's compact `json.dumps`. `undefined` inside objects is skipped, as `JSON.stringify` does.
 * Values are plain data (a `toJSON` method is not looked at).
 */
export function pythonJson(value: unknown): string {
  return sameAsJavaScript(value) ?? pythonValue(value);
}

/**
 * `JSON.stringify`'s text where it is Python's too: printable ASCII, and no number or `null` that
 * either might write otherwise (exponents, tiny fractions; `NaN` and `undefined` come out as `null`).
 * Most values written (records, diff-bases) are so, and the native encoder is much faster.
 */
function sameAsJavaScript(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return undefined; // a BigInt, or a cycle: the walk below says which
  }
  return PRINTABLE_ASCII.test(text) && !UNLIKE_PYTHON.test(text) ? text : undefined;
}

const UNLIKE_PYTHON = /null|e[-+]|0\.0000/;

function pythonValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonValue).join(',')}]`;
  if (typeof value === 'object') {
    const parts: string[] = [];
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = (value as Record<string, unknown>)[key];
      if (item !== undefined) parts.push(`${pythonString(key)}:${pythonValue(item)}`);
    }
    return `{${parts.join(',')}}`;
  }
  throw new TypeError(`Object of type ${typeof value} is not JSON serializable`);
}

/** Printable ASCII only: what `JSON.stringify` and Python write alike once escaped. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** A JSON string literal with Python's `ensure_ascii` escaping. */
export function pythonString(text: string): string {
  // JSON.stringify escapes quotes, backslashes and control characters exactly as Python does;
  // only DEL and non-ASCII characters (left raw by it) need the loop below.
  const json = JSON.stringify(text);
  if (PRINTABLE_ASCII.test(json)) return json;
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const code = text.charCodeAt(i);
    if (Object.hasOwn(SHORT_ESCAPES, ch)) out += SHORT_ESCAPES[ch];
    else if (code < 0x20 || code >= 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * A number as Python prints it: integers in full; other floats in the shortest form that reads
 * back, in exponent notation below 1e-4 with a two-digit exponent (`1.5e-07`).
 */
export function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(value))
    return Math.abs(value) < 1e21 ? String(value === 0 ? 0 : value) : BigInt(value).toString();
  const [mantissa, exponentText] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent >= -4) return String(value);
  const sign = exponent < 0 ? '-' : '+';
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

const PLAIN_REPR = /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/;

const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's `repr()` of a string: `'id'`, or `"it's"` when only single quotes occur. */
export function pythonRepr(text: string): string {
  // Most texts (handler ids) are printable ASCII without quotes or backslashes: quoted as they are.
  if (PLAIN_REPR.test(text)) return `'${text}'`;
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code < 0x7f || ch === ' ' || !NON_PRINTABLE.test(ch)) out += ch;
    else if (code <= 0xff) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return out + quote;
}
