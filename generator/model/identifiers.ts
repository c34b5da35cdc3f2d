/**
 * Identifiers made from wire names. Only type and value names are made this way; property
 * keys are always kept exactly as they are on the wire (quoted when needed).
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Words TypeScript does not accept as a type or variable name. */
const RESERVED = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum',
  'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'null',
  'return', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'as',
  'implements', 'interface', 'let', 'package', 'private', 'protected', 'public', 'static', 'yield', 'any',
  'boolean', 'number', 'string', 'symbol', 'bigint', 'object', 'never', 'unknown', 'undefined', 'type', 'await',
  'async', 'of', 'declare', 'namespace', 'module', 'keyof', 'readonly', 'infer', 'is', 'asserts', 'unique', 'global',
]);

export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name);
}

/** `foo-bar` → `FooBar`, `mirror_percent` → `MirrorPercent`, `$ref` → `Ref`, `123start` → `123start`. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

/** `cert-manager.io` → `certManagerIo`; never starts with a digit. */
export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  const camel = pascal ? pascal[0]!.toLowerCase() + pascal.slice(1) : '_';
  return /^[0-9]/.test(camel) ? `_${camel}` : camel;
}

/** A type name for a kind: the kind when it is an identifier, else its PascalCase. */
export function typeNameOf(kind: string): string {
  if (isIdentifier(kind) && /^[A-Z]/.test(kind)) return kind;
  const pascal = pascalCase(kind);
  if (!pascal) return 'Resource';
  return /^[0-9]/.test(pascal) ? `Kind${pascal}` : pascal;
}
