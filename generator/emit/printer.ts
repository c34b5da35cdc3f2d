/**
 * Type expressions and declarations of one module: the schema model printed as TypeScript.
 * `read` types are objects as the API server returns them (defaulted fields present);
 * `input` types are what a user writes (defaulted fields optional).
 */
import type { ObjectNode, Property, ScalarNode, SchemaNode } from '../model/model.ts';
import { propertyDoc, typeDoc } from './docs.ts';
import type { KopfImports } from './imports.ts';
import { presenceOf } from './shapes.ts';
import { arrayOf, literalType, propertyKey, stringLiteral } from './syntax.ts';
import { isEnum } from './typegraph.ts';
import type { NamedAlias, NamedEnum, NamedObject, TypeGraph } from './typegraph.ts';

export type Mode = 'read' | 'input';

/** Members of every object: an absent field with such a name reads as the member, and TypeScript knows it. */
const OBJECT_MEMBERS = new Set(
  ['constructor', 'toString', 'toLocaleString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'propertyIsEnumerable']
);

export class TypePrinter {
  private readonly graph: TypeGraph;
  readonly imports: KopfImports;

  constructor(graph: TypeGraph, imports: KopfImports) {
    this.graph = graph;
    this.imports = imports;
  }

  /** The type of a value of this node, as written where it is used. */
  expr(node: SchemaNode, mode: Mode): string {
    const base = this.baseExpr(node, mode);
    return node.nullable && base !== 'null' ? `${base} | null` : base;
  }

  private baseExpr(node: SchemaNode, mode: Mode): string {
    switch (node.type) {
      case 'object': {
        const wellKnown = this.graph.wellKnownOf(node);
        if (wellKnown) return this.imports.use(wellKnown);
        const named = this.graph.objectOf(node);
        if (named) return mode === 'input' && named.input ? named.input : named.name;
        if (!node.properties.length) return this.imports.use(node.preserveUnknown ? 'JsonObject' : 'EmptyObject');
        return this.inline(node, mode);
      }
      case 'map':
        return `{ [key: string]: ${this.expr(node.values, mode)} }`;
      case 'array':
        return arrayOf(this.expr(node.items, mode));
      case 'int-or-string':
        return this.imports.use(node.quantity ? 'Quantity' : 'IntOrString');
      case 'json':
        return this.imports.use('JsonValue');
      case 'metadata':
        return this.imports.use('ObjectMeta');
      default:
        return this.scalar(node);
    }
  }

  /** An object type literal, for objects that have no name of their own (inside well-known types). */
  private inline(node: ObjectNode, mode: Mode): string {
    const members = node.properties.map((p) => {
      const presence = presenceOf(p);
      const optional = mode === 'read' ? presence === 'optional' : presence !== 'required';
      return `${propertyKey(p.name)}${optional ? '?' : ''}: ${this.memberType(p.name, this.expr(p.node, mode))}`;
    });
    if (node.preserveUnknown) members.push('[key: string]: unknown');
    return `{ ${members.join('; ')} }`;
  }

  private scalar(node: ScalarNode): string {
    if (isEnum(node)) {
      const named = this.graph.enumOf(node);
      return named ? named.name : [...new Set(node.enum!.map((v) => literalType(v)!))].join(' | ');
    }
    return node.type === 'integer' || node.type === 'number' ? 'number' : node.type;
  }

  /** One property line (with its JSDoc), indented by two spaces. */
  property(p: Property, mode: Mode, type?: string): string {
    const presence = presenceOf(p);
    const optional = mode === 'read' ? presence === 'optional' : presence !== 'required';
    return `${propertyDoc('  ', p.node)}  ${propertyKey(p.name)}${optional ? '?' : ''}: ` +
      `${this.memberType(p.name, type ?? this.expr(p.node, mode))};\n`;
  }

  /** A field named like a member of every object also has the member's type (see ObjectPrototype in kopf). */
  private memberType(name: string, type: string): string {
    return OBJECT_MEMBERS.has(name) ? `${type} | ${this.imports.use('ObjectPrototype')}[${stringLiteral(name)}]` : type;
  }

  objectDeclaration(named: NamedObject, mode: Mode): string {
    const node = named.node;
    const name = mode === 'input' && named.input ? named.input : named.name;
    const note = mode === 'input' ? [
      `What to write: fields the API server defaults are optional here; ${named.name} is what it returns.`
    ] : [];
    let out = typeDoc(node, note);
    out += `export interface ${name} {\n`;
    out += this.body(node, mode);
    return `${out}}\n`;
  }

  /** Properties, then the index signature of an object that keeps unknown fields. */
  body(node: ObjectNode, mode: Mode): string {
    let out = '';
    for (const p of node.properties) out += this.property(p, mode);
    if (node.preserveUnknown)
      out += '  /** Fields not in the schema are kept (x-kubernetes-preserve-unknown-fields). */\n  [key: string]: ' +
        'unknown;\n';
    return out;
  }

  enumDeclaration(named: NamedEnum): string {
    const literals = named.node.enum!.map((v) => literalType(v)!);
    const unique = [...new Set(literals)];
    const union = unique.join(' | ');
    let out = '';
    if (union.length + named.name.length < 90) out += `export type ${named.name} = ${union};\n`;
    else out += `export type ${named.name} =\n${unique.map((l) => `  | ${l}`).join('\n')};\n`;
    const array = literals.join(', ');
    if (array.length + named.values.length < 85) out += `export const ${named.values} = [${array}] as const;\n`;
    else out += `export const ${named.values} = [\n${literals.map((l) => `  ${l},`).join('\n')}\n] as const;\n`;
    return out;
  }

  aliasDeclaration(alias: NamedAlias): string {
    let out = `export type ${alias.name} = ${alias.target.name};\n`;
    if (alias.input && alias.target.input) out += `export type ${alias.input} = ${alias.target.input};\n`;
    return out;
  }
}
