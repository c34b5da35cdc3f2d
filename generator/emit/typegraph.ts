/**
 * Which schema nodes become named types in a module, and their names. Every object with
 * properties and every enum becomes a named type, one per distinct shape in the module
 * (across its kinds), named `Kind` + the PascalCase path of its shallowest occurrence
 * (`WidgetSpecPorts`; array and map levels add nothing). A kind's own `spec` and `status` are
 * always `KindSpec`/`KindStatus` (an alias where another kind's type has the same shape).
 * Shapes equal to a well-known Kubernetes type use that type from `kopf` instead.
 */
import { pascalCase } from '../model/identifiers.ts';
import type { ObjectNode, ResourceModel, ScalarNode, SchemaNode, VersionModel } from '../model/model.ts';
import { literalType } from './syntax.ts';
import type { NameSpace } from './export-names.ts';
import type { ShapeTable } from './shapes.ts';

export interface ModuleKind {
  readonly resource: ResourceModel;
  readonly version: VersionModel;
}

export interface KindNames {
  readonly type: string;
  readonly input: string;
  readonly fields: string;
  readonly patch: string;
}

export interface NamedObject {
  readonly what: 'object';
  readonly name: string;
  /** The input variant's name, when defaults make reading and writing differ. */
  readonly input?: string;
  readonly node: ObjectNode;
  /** Index of the kind whose block the declaration goes in. */
  readonly owner: number;
}

export interface NamedEnum {
  readonly what: 'enum';
  readonly name: string;
  /** The name of the `as const` array of the values. */
  readonly values: string;
  readonly node: ScalarNode;
  readonly owner: number;
}

/** `KindSpec`/`KindStatus` of a kind whose spec or status has the same shape as an earlier type. */
export interface NamedAlias {
  readonly what: 'alias';
  readonly name: string;
  readonly input?: string;
  readonly target: NamedObject;
  readonly owner: number;
}

export type Named = NamedObject | NamedEnum | NamedAlias;

const ROOT_FIXED = new Set(['apiVersion', 'kind', 'metadata']);

export class TypeGraph {
  readonly kinds: readonly ModuleKind[];
  readonly kindNames: readonly KindNames[];
  /** In declaration order. */
  readonly named: Named[] = [];
  /** Per kind: the names its own `spec` and `status` go by (`WorkflowSpec`, even as an alias). */
  readonly own: Map<string, { readonly name: string; readonly input?: string }>[] = [];
  private readonly byId = new Map<number, NamedObject | NamedEnum>();
  private readonly table: ShapeTable;
  private readonly wellKnown: ReadonlyMap<number, string>;
  private readonly names: NameSpace;

  constructor(
    kinds: readonly ModuleKind[],
    table: ShapeTable,
    wellKnown: ReadonlyMap<number, string>,
    names: NameSpace,
  ) {
    this.kinds = kinds;
    this.table = table;
    this.wellKnown = wellKnown;
    this.names = names;
    // Kind names first: they are the module's contract; derived names yield to them.
    const types = kinds.map((k) => names.take(k.resource.typeName));
    this.kindNames = types.map((type) => ({
      type,
      input: names.take(`${type}Input`),
      fields: names.take(`${type}Fields`),
      patch: names.take(`${type}Patch`),
    }));
    kinds.forEach((k, i) => this.nameSpecAndStatus(k, i));
    this.walk();
  }

  /** The well-known type's name for a node of that shape. */
  wellKnownOf(node: SchemaNode): string | undefined {
    return this.wellKnown.get(this.table.id(node));
  }

  objectOf(node: ObjectNode): NamedObject | undefined {
    const named = this.byId.get(this.table.id(node));
    return named?.what === 'object' ? named : undefined;
  }

  enumOf(node: ScalarNode): NamedEnum | undefined {
    const named = this.byId.get(this.table.id(node));
    return named?.what === 'enum' ? named : undefined;
  }

  needsInput(node: SchemaNode): boolean {
    return this.table.needsInput(node);
  }

  /** The name of a kind's own spec or status type in a mode, if it has one. */
  ownName(owner: number, property: string, mode: 'read' | 'input'): string | undefined {
    const own = this.own[owner]?.get(property);
    if (!own) return undefined;
    return mode === 'input' && own.input ? own.input : own.name;
  }

  private nameSpecAndStatus(kind: ModuleKind, owner: number): void {
    const own = new Map<string, { name: string; input?: string }>();
    this.own[owner] = own;
    for (const property of kind.version.schema.properties) {
      if (property.name !== 'spec' && property.name !== 'status') continue;
      const node = property.node;
      if (!isNamedObject(node) || this.wellKnownOf(node)) continue;
      const base = `${this.kindNames[owner]!.type}${pascalCase(property.name)}`;
      const existing = this.byId.get(this.table.id(node));
      const input = this.table.needsInput(node);
      const name = this.names.take(base, input ? ['Input'] : []);
      const names = { name, ...(input ? { input: `${name}Input` } : {}) };
      own.set(property.name, names);
      if (existing?.what === 'object') this.named.push({ what: 'alias', target: existing, owner, ...names });
      else this.add({ what: 'object', node, owner, ...names });
    }
  }

  /** Breadth first over all kinds at once, so each shape is named after its shallowest occurrence. */
  private walk(): void {
    type Step = { node: SchemaNode; segments: readonly string[]; owner: number };
    let level: Step[] = [];
    this.kinds.forEach((kind, owner) => {
      for (const p of kind.version.schema.properties) {
        if (!ROOT_FIXED.has(p.name)) level.push({ node: p.node, segments: [p.name], owner });
      }
    });
    const expanded = new Set<number>();
    while (level.length) {
      const next: Step[] = [];
      const visit = (node: SchemaNode, segments: readonly string[], owner: number): void => {
        if (node.type === 'array') return visit(node.items, segments, owner);
        if (node.type === 'map') return visit(node.values, segments, owner);
        if (node.type !== 'object' && !isEnum(node)) return;
        if (node.type === 'object' && (!isNamedObject(node) || this.wellKnownOf(node))) return;
        const id = this.table.id(node);
        if (!this.byId.has(id)) this.nameNode(node as ObjectNode | ScalarNode, segments, owner);
        if (node.type !== 'object' || expanded.has(id)) return;
        expanded.add(id);
        for (const p of node.properties) next.push({ node: p.node, segments: [...segments, p.name], owner });
      };
      for (const step of level) visit(step.node, step.segments, step.owner);
      level = next;
    }
  }

  private nameNode(node: ObjectNode | ScalarNode, segments: readonly string[], owner: number): void {
    const base = `${this.kindNames[owner]!.type}${segments.map(pascalCase).join('')}`;
    if (node.type === 'object') {
      const input = this.table.needsInput(node);
      const name = this.names.take(base, input ? ['Input'] : []);
      this.add({ what: 'object', name, node, owner, ...(input ? { input: `${name}Input` } : {}) });
    } else {
      const name = this.names.take(base, ['Values']);
      this.add({ what: 'enum', name, values: `${name}Values`, node, owner });
    }
  }

  private add(named: NamedObject | NamedEnum): void {
    this.byId.set(this.table.id(named.node), named);
    this.named.push(named);
  }
}

function isNamedObject(node: SchemaNode): node is ObjectNode {
  return node.type === 'object' && node.properties.length > 0;
}

/** A scalar whose enum values all have literal types (anything else stays its plain type). */
export function isEnum(node: SchemaNode): boolean {
  if (node.type !== 'string' && node.type !== 'integer' && node.type !== 'number' && node.type !== 'boolean')
    return false;
  return node.enum !== undefined && node.enum.length > 0 && node.enum.every((v) => literalType(v) !== undefined);
}
