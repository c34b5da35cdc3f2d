/**
 * Plain YAML scalars resolved the way Kubernetes resolves them. kubectl and the API server read
 * YAML through sigs.k8s.io/yaml, which decodes with go-yaml v2 (YAML 1.1 rules) and converts the
 * result to JSON: `on`/`yes`/`y` are booleans, `0755` is octal, `1_000` is 1000, while timestamps
 * stay strings. The `yaml` package's 1.2 core schema differs on all of these, so kopf-gen parses
 * with the failsafe schema (every scalar a string) and resolves here.
 */

export type Scalar = null | boolean | number | string;

const TRUE = ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'];
const FALSE = ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'];
const NULL = ['', '~', 'null', 'Null', 'NULL'];
const NAN = ['.nan', '.NaN', '.NAN'];
const INF = ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'];
const NEG_INF = ['-.inf', '-.Inf', '-.INF'];

const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const GO_FLOAT = /^[-+]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|inf|infinity|nan)$/i;

/** A non-finite number: valid YAML, but not JSON, so Kubernetes rejects it. */
export class NotJsonError extends Error {}

/** What an untagged plain scalar is. */
export function resolvePlain(text: string): Scalar {
  return resolve(text).value;
}

/** Floats and integers differ as keys (`1e6` is `1e+06`, `1000000` is itself), so keep which it was. */
function resolve(text: string): { value: Scalar; float?: boolean } {
  if (TRUE.includes(text)) return { value: true };
  if (FALSE.includes(text)) return { value: false };
  if (NULL.includes(text)) return { value: null };
  if (NAN.includes(text) || INF.includes(text) || NEG_INF.includes(text)) {
    throw new NotJsonError(`${text} is not a JSON number`);
  }
  const first = text[0]!;
  if (first === '.') {
    return GO_FLOAT.test(text) ? { value: Number(text), float: true } : { value: text };
  }
  if (/[0-9+-]/.test(first)) {
    // Timestamps (`2024-01-02`) decode to their text when the target is untyped, as in a CRD;
    // they never parse as numbers below, so they stay strings without a check of their own.
    const plain = text.replaceAll('_', '');
    const integer = parseGoInteger(plain);
    if (integer !== undefined) return { value: integer };
    if (YAML_FLOAT.test(plain)) return { value: Number(plain), float: true };
  }
  return { value: text };
}

/** A plain scalar used as a mapping key, as sigs.k8s.io/yaml turns it into a JSON key. */
export function plainKey(text: string): string | undefined {
  const { value, float } = resolve(text);
  return float && typeof value === 'number' ? goFloat32G(value) : keyString(value);
}

/** A scalar with an explicit tag (`!!int "12"`, `!!str 12`). Unknown tags keep the text. */
export function resolveTagged(tag: string, text: string): Scalar {
  const short = tag.replace(/^tag:yaml\.org,2002:/, '!!');
  switch (short) {
    case '!!str':
    case '!!timestamp':
      return text;
    case '!!binary':
      return Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8');
    case '!!null':
    case '!!bool':
    case '!!int':
    case '!!float': {
      const value = resolvePlain(text);
      const kind = value === null ? '!!null' : typeof value === 'boolean' ? '!!bool'
        : typeof value === 'number' ? (Number.isInteger(value) && !/[.eE]/.test(text) ? '!!int' : '!!float') : '!!str';
      if (kind === short || (short === '!!float' && kind === '!!int')) return value;
      throw new TypeError(`cannot decode ${kind} \`${text}\` as a ${short}`);
    }
    default:
      return text;
  }
}

/** Go's `strconv.ParseInt(s, 0, 64)`, then `ParseUint`: sign, `0x`/`0o`/`0b` prefixes, a leading `0` for octal. */
function parseGoInteger(text: string): number | undefined {
  const match = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (!match) return undefined;
  const [, sign, digits] = match as unknown as [string, string, string];
  let big: bigint;
  if (/^0[oO]/.test(digits)) big = BigInt(`0o${digits.slice(2)}`);
  else if (/^0[0-7]+$/.test(digits)) big = BigInt(`0o${digits.slice(1)}`);
  else big = BigInt(digits);
  if (sign === '-') big = -big;
  const limit = sign === '-' ? -(2n ** 63n) : 2n ** 64n - 1n;
  if (sign === '-' ? big < limit : big > limit) return undefined;
  return Number(big);
}

/**
 * A resolved scalar as a JSON key: `true`/`false`, decimal integers, other numbers in Go's
 * shortest 32-bit `%g` (as sigs.k8s.io/yaml writes float keys). `null` has no key form.
 */
export function keyString(value: Scalar): string | undefined {
  if (value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 63) return BigInt(value).toString();
  return goFloat32G(value);
}

function goFloat32G(value: number): string {
  if (value === 0) return '0';
  const f = Math.fround(value);
  let digits = '';
  let exponent = 0;
  for (let precision = 1; precision <= 9; precision++) {
    const candidate = f.toExponential(precision - 1);
    if (Math.fround(Number(candidate)) === f) {
      const [mantissa, exp] = candidate.split('e') as [string, string];
      digits = mantissa.replace('-', '').replace('.', '');
      exponent = Number(exp);
      break;
    }
  }
  const sign = f < 0 ? '-' : '';
  if (exponent < -4 || exponent >= 6) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const e = Math.abs(exponent);
    return `${sign}${digits[0]}${rest}e${exponent < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole.slice(0, exponent + 1)}${fraction ? `.${fraction}` : ''}`;
}
