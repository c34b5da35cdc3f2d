/**
 * YAML streams to JSON values, with Kubernetes' reading rules (see scalars.ts): what kopf-gen
 * types is what the API server would store, not what a YAML 1.2 parser would read.
 */
import { Composer, isAlias, isMap, isScalar, isSeq, LineCounter, Parser } from 'yaml';
import type { Alias, Document, Node as YamlNode, ParsedNode } from 'yaml';
import { mebibytes } from '../diagnostics/diagnostic.ts';
import type { Diagnostic, PathSegment } from '../diagnostics/diagnostic.ts';
import { newJsonMap } from './json.ts';
import type { Json, JsonMap } from './json.ts';
import { keyString, plainKey, resolvePlain, resolveTagged } from './scalars.ts';
import type { Scalar } from './scalars.ts';

export interface YamlDocument {
  /** 1-based position of the document in the stream. */
  readonly index: number;
  readonly value: Json;
}

export interface YamlStream {
  readonly documents: readonly YamlDocument[];
  readonly errors: readonly Diagnostic[];
  /** Where a JSON path of a document is in the text (the nearest enclosing key or item found). */
  locate(document: number, path: readonly PathSegment[]): Position | undefined;
}

export interface Position {
  readonly line: number;
  readonly column: number;
}

/**
 * The largest document read. The API server takes objects of up to 3 MiB of JSON; the same
 * object in YAML is two to three times larger with its indentation. A larger document could never
 * be applied, and parsing it only costs time and memory.
 */
export const MAX_DOCUMENT_BYTES = 8 * 1024 * 1024;
/**
 * Aliases may multiply a small document into a huge value ("billion laughs"): they may add at
 * most as many values as the document has of its own, or this many to a smaller document.
 */
export const MAX_ALIASED_VALUES = 100_000;
/** Deeper nesting is no CRD; the cap keeps every recursive step over a document within the stack. */
export const MAX_DEPTH = 500;

const PARSE_OPTIONS = { schema: 'failsafe', uniqueKeys: false, strict: false } as const;
/** A line that starts or ends a document, whatever the line is inside of (YAML forbids it in content). */
const DOCUMENT_MARKER = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;

class ConversionError extends Error {
  readonly node: YamlNode | undefined;
  readonly path: readonly PathSegment[];
  constructor(message: string, node: YamlNode | undefined, path: readonly PathSegment[]) {
    super(message);
    this.node = node;
    this.path = path;
  }
}

export function parseYamlStream(text: string, file: string): YamlStream {
  const lines = new LineCounter();
  const documents: YamlDocument[] = [];
  const errors: Diagnostic[] = oversizedDocuments(text, file);
  // Offsets of keys and items, per converted container: positions for messages without a re-parse.
  const offsets = new WeakMap<object, Map<PathSegment, number>>();
  const roots = new Map<number, { value: Json; offset: number | undefined }>();
  // One document at a time: each syntax tree is dropped once its value is read.
  const parsed = errors.length ? [] : new Composer(PARSE_OPTIONS).compose(new Parser(lines.addNewLine).parse(text));
  let index = 0;
  for (const doc of parsed) {
    index++;
    for (const e of doc.errors) {
      const at = lines.linePos(e.pos[0]);
      // The parser's own recursion gives out first on absurd nesting: say what that means.
      const message = /call stack|stack overflow/i.test(e.message) ? 'nested too deeply to read' : firstLine(e.message);
      errors.push({ severity: 'error', file, document: index, line: at.line, column: at.col, message });
    }
    if (doc.errors.length) continue;
    try {
      const value = new Converter(doc, offsets).convert(doc.contents, []);
      roots.set(index, { value, offset: doc.contents?.range?.[0] });
      if (value !== null) documents.push({ index, value });
    } catch (e) {
      if (!(e instanceof ConversionError)) throw e;
      const offset = e.node?.range?.[0];
      const at = offset !== undefined ? lines.linePos(offset) : undefined;
      errors.push({
        severity: 'error',
        file,
        document: index,
        path: e.path,
        line: at?.line,
        column: at?.col,
        message: e.message,
      });
    }
  }
  const locate = (document: number, path: readonly PathSegment[]): Position | undefined => {
    const root = roots.get(document);
    if (!root) return undefined;
    let offset = root.offset;
    let value: Json | undefined = root.value;
    for (const segment of path) {
      if (value === null || typeof value !== 'object') break;
      const at = offsets.get(value)?.get(segment);
      if (at === undefined) break;
      offset = at;
      if (Array.isArray(value)) value = typeof segment === 'number' ? value[segment] : undefined;
      else value = (value as JsonMap)[String(segment)];
    }
    if (offset === undefined) return undefined;
    const at = lines.linePos(offset);
    return { line: at.line, column: at.col };
  };
  return { documents, errors, locate };
}

function isNode(value: unknown): value is YamlNode {
  return isMap(value) || isSeq(value) || isScalar(value) || isAlias(value);
}

function keyOfStrict(node: YamlNode): string | undefined {
  if (isScalar(node) && node.type === 'PLAIN' && !node.tag) return plainKey(scalarText(node));
  return keyString(scalarValue(node));
}

function scalarText(node: YamlNode): string {
  if (!isScalar(node)) return '';
  return typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
}

function scalarValue(node: YamlNode): Scalar {
  if (!isScalar(node)) return null;
  const text = scalarText(node);
  if (node.tag && node.tag !== '!') return resolveTagged(node.tag, text);
  return node.type === 'PLAIN' ? resolvePlain(text) : text;
}

/** Where a document is too large to read, found without parsing it: the start line of each such document. */
function oversizedDocuments(text: string, file: string): Diagnostic[] {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most files are cleared without measuring.
  if (text.length * 3 <= MAX_DOCUMENT_BYTES) return [];
  const bounds = [0, ...Array.from(text.matchAll(DOCUMENT_MARKER), (m) => m.index), text.length];
  const errors: Diagnostic[] = [];
  for (let i = 1; i < bounds.length; i++) {
    const [from, to] = [bounds[i - 1]!, bounds[i]!];
    if ((to - from) * 3 <= MAX_DOCUMENT_BYTES) continue;
    const bytes = Buffer.byteLength(text.slice(from, to));
    if (bytes <= MAX_DOCUMENT_BYTES) continue;
    errors.push({
      severity: 'error', file, line: lineAt(text, from), column: 1,
      message: `the document starting here is ${mebibytes(bytes)}; kopf-gen reads documents of up to `
        + `${mebibytes(MAX_DOCUMENT_BYTES)} (the API server takes objects of up to 3 MiB of JSON)`,
    });
  }
  return errors;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Nodes a document has of its own, aliases counted once, not expanded; without recursion, however deep. */
function ownNodes(doc: Document.Parsed<ParsedNode>): number {
  let count = 0;
  const stack: unknown[] = [doc.contents];
  while (stack.length) {
    const node = stack.pop();
    if (!isNode(node)) continue;
    count++;
    if (isSeq(node)) for (const item of node.items) stack.push(item);
    else if (isMap(node)) for (const pair of node.items) stack.push(pair.key, pair.value);
  }
  return count;
}

class Converter {
  private readonly doc: Document.Parsed<ParsedNode>;
  private readonly offsets: WeakMap<object, Map<PathSegment, number>>;
  private readonly resolving = new Set<YamlNode>();
  /** The outermost alias being expanded, nodes converted through aliases, and how many may be. */
  private expanding: { readonly alias: Alias; readonly path: PathSegment[] } | undefined;
  private aliased = 0;
  private readonly aliasLimit: number;

  constructor(doc: Document.Parsed<ParsedNode>, offsets: WeakMap<object, Map<PathSegment, number>>) {
    this.doc = doc;
    this.offsets = offsets;
    this.aliasLimit = Math.max(MAX_ALIASED_VALUES, ownNodes(doc));
  }

  convert(node: unknown, path: PathSegment[]): Json {
    if (this.expanding && ++this.aliased > this.aliasLimit) {
      const { alias, path: at } = this.expanding;
      const message = `excessive aliasing: aliases add over ${this.aliasLimit} values to the document`;
      throw new ConversionError(message, alias, at);
    }
    if (path.length > MAX_DEPTH) {
      const where = isNode(node) ? node : undefined;
      throw new ConversionError(`nested deeper than ${MAX_DEPTH} levels`, where, path.slice(0, 10));
    }
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return this.alias(node, path);
    if (isMap(node)) return this.mapping(node.items, path);
    if (isSeq(node)) {
      const items = node.items.map((item, i) => this.convert(item, [...path, i]));
      const at = new Map<PathSegment, number>();
      node.items.forEach((item, i) => {
        const offset = isNode(item) ? item.range?.[0] : undefined;
        if (offset !== undefined) at.set(i, offset);
      });
      this.offsets.set(items, at);
      return items;
    }
    if (isScalar(node)) return this.scalar(node, path);
    throw new ConversionError('unsupported YAML node', undefined, path);
  }

  private alias(node: Alias, path: PathSegment[]): Json {
    const target = node.resolve(this.doc);
    if (!target) throw new ConversionError(`unknown alias *${node.source}`, node, path);
    if (this.resolving.has(target)) throw new ConversionError(`alias *${node.source} refers to itself`, node, path);
    this.resolving.add(target);
    const outermost = !this.expanding;
    if (outermost) this.expanding = { alias: node, path: path.slice(0, 10) };
    try {
      return this.convert(target, path);
    } finally {
      this.resolving.delete(target);
      if (outermost) this.expanding = undefined;
    }
  }

  private scalar(node: YamlNode, path: PathSegment[]): Scalar {
    try {
      return scalarValue(node);
    } catch (e) {
      throw new ConversionError(e instanceof Error ? e.message : String(e), node, path);
    }
  }

  private mapping(items: readonly { key: unknown; value: unknown }[], path: PathSegment[]): JsonMap {
    const out = newJsonMap();
    const at = new Map<PathSegment, number>();
    this.offsets.set(out, at);
    const explicit = new Set<string>();
    const merged: JsonMap[] = [];
    for (const pair of items) {
      if (isScalar(pair.key) && pair.key.type === 'PLAIN' && !pair.key.tag && pair.key.source === '<<') {
        merged.push(...this.mergeSources(pair.value, path));
        continue;
      }
      const key = this.key(pair.key, path);
      if (explicit.has(key)) {
        throw new ConversionError(`duplicate key ${JSON.stringify(key)}`, pair.key as YamlNode, [...path, key]);
      }
      explicit.add(key);
      const offset = isNode(pair.key) ? pair.key.range?.[0] : undefined;
      if (offset !== undefined) at.set(key, offset);
      out[key] = this.convert(pair.value, [...path, key]);
    }
    // YAML merge keys: explicit keys win, then earlier merged mappings over later ones.
    for (const source of merged) {
      for (const key of Object.keys(source)) if (!(key in out)) out[key] = source[key];
    }
    return out;
  }

  private mergeSources(value: unknown, path: PathSegment[]): JsonMap[] {
    const sources = isSeq(value) ? value.items : [value];
    return sources.map((source) => {
      const converted = this.convert(source, path);
      if (converted === null || typeof converted !== 'object' || Array.isArray(converted)) {
        const message = 'a merge key (<<) must refer to a mapping or a list of mappings';
        throw new ConversionError(message, isNode(source) ? source : undefined, path);
      }
      return converted;
    });
  }

  private key(node: unknown, path: PathSegment[]): string {
    if (isAlias(node)) node = node.resolve(this.doc);
    if (!isScalar(node)) {
      throw new ConversionError('a mapping key must be a scalar', isNode(node) ? node : undefined, path);
    }
    let key: string | undefined;
    try {
      key = keyOfStrict(node);
    } catch (e) {
      throw new ConversionError(e instanceof Error ? e.message : String(e), node, path);
    }
    if (key === undefined) throw new ConversionError('a mapping key must not be null', node, path);
    return key;
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
