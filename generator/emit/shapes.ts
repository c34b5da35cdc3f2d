/**
 * Shapes: what makes two schema nodes the same TypeScript type. Descriptions, formats, limits
 * and CEL rules do not count; property types, presence (required, defaulted, optional),
 * nullability, enums, preserve-unknown-fields and embedding do. Shapes are interned to small
 * numbers, children by number, so that keys stay short on 10 000-node schemas.
 */
import { canonicalJson } from '../input/json.ts';
import type { Property, SchemaNode } from '../model/model.ts';

/**
 * How a property is present: always (`required`), always once read (`defaulted`: the API server
 * fills it in where it is left out, so it is optional to write, even where it is also required),
 * or maybe.
 */
export type Presence = 'required' | 'defaulted' | 'optional';

export function presenceOf(property: Property): Presence {
  if (property.node.default !== undefined) return 'defaulted';
  return property.required ? 'required' : 'optional';
}

export class ShapeTable {
  private readonly ids = new Map<string, number>();
  private readonly byNode = new WeakMap<SchemaNode, number>();
  private readonly inputs = new Map<number, boolean>();
  private readonly examples: SchemaNode[] = [];

  /** The shape number of a node (its own nullability and default excluded: they belong to where it is used). */
  id(node: SchemaNode): number {
    const known = this.byNode.get(node);
    if (known !== undefined) return known;
    const key = this.key(node);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.examples.length;
      this.ids.set(key, id);
      this.examples.push(node);
    }
    this.byNode.set(node, id);
    return id;
  }

  /** The node the shape was first seen as. */
  example(id: number): SchemaNode {
    return this.examples[id]!;
  }

  /**
   * Whether the read type and the input type differ below this node: somewhere a field with a
   * default is optional to write but always there to read.
   */
  needsInput(node: SchemaNode): boolean {
    const id = this.id(node);
    let result = this.inputs.get(id);
    if (result === undefined) {
      result = this.computeNeedsInput(node);
      this.inputs.set(id, result);
    }
    return result;
  }

  private computeNeedsInput(node: SchemaNode): boolean {
    switch (node.type) {
      case 'object':
        return node.properties.some((p) => presenceOf(p) === 'defaulted' || this.needsInput(p.node));
      case 'map':
        return this.needsInput(node.values);
      case 'array':
        return this.needsInput(node.items);
      default:
        return false;
    }
  }

  private ref(node: SchemaNode): string {
    return `${this.id(node)}${node.nullable ? 'n' : ''}`;
  }

  private key(node: SchemaNode): string {
    switch (node.type) {
      case 'object': {
        const props = [...node.properties]
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          .map((p) => `${JSON.stringify(p.name)}:${presenceOf(p)[0]}${this.ref(p.node)}`);
        return `O${node.preserveUnknown ? 'p' : ''}${node.embedded ? 'e' : ''}{${props.join(',')}}`;
      }
      case 'map':
        return `M(${this.ref(node.values)})`;
      case 'array':
        return `A(${this.ref(node.items)})`;
      case 'int-or-string':
        return node.quantity ? 'Q' : 'I';
      case 'json':
        return 'J';
      case 'metadata':
        return 'MD';
      default:
        return `S${node.type}${node.enum ? canonicalJson([...node.enum]) : ''}`;
    }
  }
}
