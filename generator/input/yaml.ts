/**
 * YAML streams to JSON values, with Kubernetes' reading rules (see scalars.ts): what kopf-gen
 * types is what the API server would store, not what a YAML 1.2 parser would read.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import type { Alias, Document, Node as YamlNode, ParsedNode } from 'yaml';
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

/** Aliases may multiply a small file into a huge value ("billion laughs"); stop well before that. */
const MAX_NODES = 5_000_000;

const PARSE_OPTIONS = { schema: 'failsafe', uniqueKeys: false, strict: false, prettyErrors: false } as const;

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
  const errors: Diagnostic[] = [];
  const parsed = parseAllDocuments(text, { ...PARSE_OPTIONS, lineCounter: lines });
  const list = Array.isArray(parsed) ? parsed : [];
  // Offsets of keys and items, per converted container: positions for messages without a re-parse.
  const offsets = new WeakMap<object, Map<PathSegment, number>>();
  const roots = new Map<number, { value: Json; offset: number | undefined }>();
  list.forEach((doc, i) => {
    const index = i + 1;
    if (doc.errors.length) {
      for (const e of doc.errors) {
        const at = lines.linePos(e.pos[0]);
        errors.push(
          { severity: 'error', file, document: index, line: at.line, column: at.col, message: firstLine(e.message) }
        );
      }
      return;
    }
    try {
      const value = new Converter(doc, offsets).convert(doc.contents, []);
      roots.set(index, { value, offset: doc.contents?.range?.[0] });
      if (value !== null) documents.push({ index, value });
    } catch (e) {
      if (!(e instanceof ConversionError)) throw e;
      const offset = e.node?.range?.[0];
      const at = offset !== undefined ? lines.linePos(offset) : undefined;
      errors.push(
        { severity: 'error', file, document: index, path: e.path, line: at?.line, column: at?.col, message: e.message }
      );
    }
  });
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
      value = Array.isArray(value) ? (typeof segment === 'number' ? value[segment] : undefined) : (value as JsonMap)[
        String(segment)
      ];
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

class Converter {
  private readonly doc: Document.Parsed<ParsedNode>;
  private readonly offsets: WeakMap<object, Map<PathSegment, number>>;
  private nodes = 0;
  private readonly resolving = new Set<YamlNode>();

  constructor(doc: Document.Parsed<ParsedNode>, offsets: WeakMap<object, Map<PathSegment, number>>) {
    this.doc = doc;
    this.offsets = offsets;
  }

  convert(node: unknown, path: PathSegment[]): Json {
    if (++this.nodes > MAX_NODES)
      throw new ConversionError('the document expands to too many values (aliases?)', undefined, path);
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
    try {
      return this.convert(target, path);
    } finally {
      this.resolving.delete(target);
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
      if (explicit.has(key))
        throw new ConversionError(`duplicate key ${JSON.stringify(key)}`, pair.key as YamlNode, [...path, key]);
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
        throw new ConversionError(
          'a merge key (<<) must refer to a mapping or a list of mappings',
          isNode(source) ? source : undefined,
          path,
        );
      }
      return converted;
    });
  }

  private key(node: unknown, path: PathSegment[]): string {
    if (isAlias(node)) node = node.resolve(this.doc);
    if (!isScalar(node))
      throw new ConversionError('a mapping key must be a scalar', isNode(node) ? node : undefined, path);
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
