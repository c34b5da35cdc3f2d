/**
 * Converting objects between the versions of their resources, hub and spoke: a spoke's object goes
 * up to the hub, the hub's goes down to a spoke, a spoke's goes to another spoke through the hub.
 * Every converter's result is checked (the apiVersion asked for, the same kind, the same metadata
 * but for labels and annotations): the API server would otherwise store what a converter got
 * wrong. What a spoke cannot hold is kept on its objects and restored (preservation.ts).
 */
import { copyJson, isMapping, jsonEqual } from '../structs/diffs.ts';
import { thrownText } from '../structs/errors.ts';
import { apiVersionOf, type KubeObject, type ObjectMeta } from '../structs/resources.ts';
import type { ConversionHandler, ConvertFn } from '../registry/conversions.ts';
import { keepLost, lostFields, restoreLost, takeKept } from './preservation.ts';

/** One object could not be converted: the API server's caller is told this message. */
export class ConversionFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionFailure';
  }
}

/** A resource's converters: its hub's version and a spoke's converters by its version. */
interface Chain {
  hub: string;
  spokes: ReadonlyMap<string, ConversionHandler>;
}

type Direction = 'up' | 'down';

/** Metadata that converters may change; anything else must come back as it went in. */
const CHANGEABLE_METADATA = new Set(['labels', 'annotations']);

export class Conversions {
  /** By `<kind>.<group>`: what objects carry. */
  private readonly chains = new Map<string, Chain>();

  constructor(handlers: readonly ConversionHandler[]) {
    for (const handler of handlers) {
      const key = `${handler.hub.kind}.${handler.hub.group}`;
      const chain = this.chains.get(key) ?? { hub: handler.hub.version, spokes: new Map() };
      (chain.spokes as Map<string, ConversionHandler>).set(handler.spoke.version, handler);
      this.chains.set(key, chain);
    }
  }

  /** The object in the version asked for (`group/version`); throws a `ConversionFailure` saying why not. */
  convert(object: KubeObject, desiredAPIVersion: string): KubeObject {
    const [group, version] = splitApiVersion(object.apiVersion ?? '');
    const [desiredGroup, desired] = splitApiVersion(desiredAPIVersion);
    const what = `${object.kind}.${group}`;
    const chain = this.chains.get(what);
    if (!chain) throw new ConversionFailure(`There are no converters of ${what}.`);
    if (desiredGroup !== group) {
      throw new ConversionFailure(`${what} cannot be converted to another group's ${desiredAPIVersion}.`);
    }
    if (version === desired) return object;
    const hub = version === chain.hub ? object : this.up(chain, version, object);
    return desired === chain.hub ? hub : this.down(chain, desired, hub);
  }

  private up(chain: Chain, version: string, spoke: KubeObject): KubeObject {
    const handler = this.spoke(chain, version, spoke);
    const { object, lost } = takeKept(spoke, chain.hub);
    const hub = run(handler, 'up', object);
    restoreLost(hub, lost);
    return hub;
  }

  private down(chain: Chain, version: string, hub: KubeObject): KubeObject {
    const handler = this.spoke(chain, version, hub);
    const spoke = run(handler, 'down', hub);
    // Back up at once, to see what the spoke cannot hold (and that `up` takes what `down` gives).
    const roundTrip = run(handler, 'up', takeKept(spoke, chain.hub).object);
    keepLost(spoke, chain.hub, lostFields(hub, roundTrip));
    return spoke;
  }

  private spoke(chain: Chain, version: string, object: KubeObject): ConversionHandler {
    const handler = chain.spokes.get(version);
    if (handler) return handler;
    const known = [chain.hub, ...chain.spokes.keys()].join(', ');
    throw new ConversionFailure(`There is no converter of ${object.kind} ${version} (known versions: ${known}).`);
  }
}

/** Runs one converter on a copy of the object (it may change what it gets), and checks what it returns. */
function run(handler: ConversionHandler, direction: Direction, object: KubeObject): KubeObject {
  const fn: ConvertFn = handler[direction];
  const target = apiVersionOf(direction === 'up' ? handler.hub : handler.spoke);
  const name = `The converter ${direction} of ${handler.id}`;
  let result: unknown;
  try {
    result = fn(copyJson(object));
  } catch (error) {
    throw new ConversionFailure(`${name} failed: ${thrownText(error)}`);
  }
  if (!isMapping(result)) throw new ConversionFailure(`${name} returned ${describeValue(result)}, not an object.`);
  if (result.apiVersion !== target) {
    throw new ConversionFailure(`${name} returned apiVersion ${describeValue(result.apiVersion)}, not '${target}'.`);
  }
  if (result.kind !== object.kind) {
    throw new ConversionFailure(`${name} returned kind ${describeValue(result.kind)}, not '${object.kind}'.`);
  }
  const changed = changedMetadata(object.metadata, result.metadata);
  if (changed.length) {
    const fields = changed.map((key) => `metadata.${key}`).join(', ');
    throw new ConversionFailure(`${name} changed ${fields}: converters may change only labels and annotations.`);
  }
  return result as KubeObject;
}

function changedMetadata(before: unknown, after: unknown): string[] {
  const a = (isMapping(before) ? before : {}) as ObjectMeta & Record<string, unknown>;
  const b = (isMapping(after) ? after : {}) as ObjectMeta & Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((key) => !CHANGEABLE_METADATA.has(key) && !jsonEqual(a[key], b[key]));
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return `'${value}'`;
  return value instanceof Promise ? 'a promise (converters are synchronous)' : typeof value;
}

function splitApiVersion(apiVersion: string): [group: string, version: string] {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}
