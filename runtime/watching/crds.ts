/**
 * Resources named by a string that were not served at the start are served as soon as discovery
 * lists them. CRDs are watched, as Kopf does: a CRD that could be the name is the hint that the
 * resource exists or is about to. While there is one, the name is resolved again and again, with
 * the client's error backoffs (the last one repeating), until discovery lists it: discovery lags
 * behind a CRD's creation, and for a moment after kube-apiserver restarts it does not list
 * resources whose CRDs have long been there. Without a CRD, the name waits for one to appear.
 * Without the right to list CRDs, the names stay unserved, with a warning. Never throws.
 */
import { CustomResourceDefinitions, type CustomResourceDefinition } from '../structs/builtins.ts';
import {
  UnresolvedResourceError, isForbidden, isOrWraps, parseSelector, resolveResource, watchStream,
  type DiscoveredResource, type KubeClient,
} from '../kube/index.ts';
import { repeatingDelay } from '../kube/backoff.ts';
import type { Logger } from '../logging/index.ts';
import { thrownText } from '../structs/errors.ts';
import { sleep } from '../queueing/sleeping.ts';

/**
 * Why a name is served now: its CRD appeared while the operator ran, or discovery caught up with
 * one that was there.
 */
export type ServedBecause = 'created' | 'discovered';

type Serve = (name: string, resource: DiscoveredResource, because: ServedBecause) => void;

export async function serveWhenCreated(
  client: KubeClient,
  names: readonly string[],
  serve: Serve,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  if (!names.length) return;
  const waiting = new Waiting(client, names, serve, signal, logger);
  try {
    let listed = false;
    for await (const event of watchStream(client, CustomResourceDefinitions, { signal: waiting.signal })) {
      if (event.type === 'LISTED_DONE') listed = true;
      if (!('object' in event)) continue;
      if (event.type === 'DELETED') waiting.forget(event.object);
      else waiting.hint(event.object, listed);
    }
  } catch (error) {
    if (waiting.signal.aborted) return;
    // The served resources go on either way: only the late ones are given up.
    const givenUp = `these resources will not be served when their CRDs are created: ${waiting.give().join(', ')}.`;
    if (isOrWraps(error, isForbidden)) {
      logger.warning(`Not enough permissions to watch CRDs: ${givenUp}`);
    } else {
      logger.error(`Watching CRDs failed: ${givenUp}`, error);
    }
  }
}

/** The names not served yet, the CRDs that could be them, and one resolving loop per name with a CRD. */
class Waiting {
  readonly #pending: Set<string>;
  readonly #crds = new Map<string, CustomResourceDefinition>();
  readonly #resolving = new Set<string>();
  readonly #done = new AbortController();
  readonly #client: KubeClient;
  readonly #serve: Serve;
  readonly #logger: Logger;
  /** Aborted when the operator stops, or when every name is served (the CRD watch ends then). */
  readonly signal: AbortSignal;

  constructor(client: KubeClient, names: readonly string[], serve: Serve, signal: AbortSignal, logger: Logger) {
    this.#client = client;
    this.#pending = new Set(names);
    this.#serve = serve;
    this.#logger = logger;
    this.signal = AbortSignal.any([signal, this.#done.signal]);
  }

  /**
   * A CRD was found in the listing (`listed` false: it was there at the start) or created or
   * changed since: the names it could be are resolved.
   */
  hint(crd: CustomResourceDefinition, listed: boolean): void {
    this.#crds.set(crd.metadata?.name ?? '', crd);
    for (const name of this.#pending) {
      if (!couldBe(crd, name)) continue;
      this.#resolve(name, listed ? 'created' : 'discovered').catch((error: unknown) => {
        this.#logger.error(`Serving the resource '${name}' failed.`, error);
      });
    }
  }

  forget(crd: CustomResourceDefinition): void {
    this.#crds.delete(crd.metadata?.name ?? '');
  }

  /** Gives up: the names still pending. */
  give(): string[] {
    this.#done.abort();
    return [...this.#pending];
  }

  /** Resolves the name until discovery lists it, for as long as a CRD could be it. */
  async #resolve(name: string, because: ServedBecause): Promise<void> {
    if (this.#resolving.has(name)) return;
    this.#resolving.add(name);
    try {
      const { errorBackoffs } = this.#client.settings;
      const backoffs = errorBackoffs.length ? errorBackoffs : [1];
      for (let misses = 0; this.#pending.has(name) && !this.signal.aborted; misses++) {
        const found = await this.#attempt(name);
        if (this.signal.aborted || !this.#pending.has(name)) return;
        if (found.ambiguous) return; // a CRD change may settle it
        if (found.resource) {
          this.#pending.delete(name);
          this.#serve(name, found.resource, because);
          if (!this.#pending.size) this.#done.abort();
          return;
        }
        const hasCrd = [...this.#crds.values()].some((crd) => couldBe(crd, name));
        if (!hasCrd) return; // its CRD is gone: wait for one
        const delay = repeatingDelay(backoffs, misses);
        const notListed = `has a CRD, but discovery does not list it yet (${found.why})`;
        this.#logger.info(`The resource '${name}' ${notListed}: still waiting; the next try in ${delay} s.`);
        if (!(await sleep(delay, this.signal))) return;
      }
    } finally {
      this.#resolving.delete(name);
    }
  }

  /** The resource, once discovery lists it; else why not (not listed, ambiguous, discovery failed). */
  async #attempt(name: string): Promise<{ resource?: DiscoveredResource; ambiguous?: boolean; why: string }> {
    try {
      return { resource: await resolveResource(this.#client, name), why: '' };
    } catch (error) {
      if (error instanceof UnresolvedResourceError) {
        return { ambiguous: error.reason === 'ambiguous', why: error.message };
      }
      return { why: `discovery failed: ${thrownText(error)}` };
    }
  }
}

/** Whether the CRD has the name and the group that the name asks for. */
function couldBe(crd: CustomResourceDefinition, name: string): boolean {
  const selector = parseSelector(name);
  type Names = { plural?: string; singular?: string; kind?: string; shortNames?: string[] };
  const spec = crd.spec as { group?: string; names?: Names } | undefined;
  if (selector.group !== undefined && selector.group !== spec?.group) return false;
  const names = spec?.names ?? {};
  const wanted = selector.name.toLowerCase();
  return [names.plural, names.singular, names.kind, ...(names.shortNames ?? [])]
    .some((n) => n !== undefined && n.toLowerCase() === wanted);
}
