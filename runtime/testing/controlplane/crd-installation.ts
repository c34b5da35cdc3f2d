/**
 * Installing CustomResourceDefinitions the way a test needs them: create or replace, then wait
 * until the apiserver serves them (Established, and listed in discovery), so that the very next
 * request for the new resource does not get a 404.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllDocuments } from 'yaml';
import { ApiError, expectJson, requestWithRetry, type ApiCredentials } from './requests.ts';

/** A YAML file (one or more documents) or a CRD object. */
export type CrdSource = string | Record<string, unknown>;

interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string; resourceVersion?: string; [key: string]: unknown };
  spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] };
  status?: { conditions?: { type: string; status: string }[] };
}

const CRDS_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

export function readCrds(sources: readonly CrdSource[]): Crd[] {
  const crds: Crd[] = [];
  for (const source of sources) {
    const documents = typeof source === 'string' ? parseYamlFile(source) : [source];
    for (const document of documents) {
      if (document === null || document === undefined) continue;
      crds.push(asCrd(document, typeof source === 'string' ? source : 'an object'));
    }
  }
  return crds;
}

function parseYamlFile(path: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    // Node's message does not always name the path (EISDIR: "illegal operation on a directory").
    throw new Error(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  return parseAllDocuments(text).map((document) => {
    if (document.errors.length) throw new Error(`${path}: ${document.errors[0].message}`);
    return document.toJS() as unknown;
  });
}

function asCrd(value: unknown, origin: string): Crd {
  const object = value as Partial<Crd> | null;
  if (
    typeof object !== 'object' || object === null || object.kind !== 'CustomResourceDefinition'
      || !object.metadata?.name || !object.spec?.group
  ) {
    const kind = typeof object === 'object' && object !== null ? String(object.kind) : typeof object;
    throw new Error(`${origin}: expected a CustomResourceDefinition, got ${kind}`);
  }
  return object as Crd;
}

export async function installCrds(
  credentials: ApiCredentials,
  sources: readonly CrdSource[],
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const crds = readCrds(sources);
  for (const crd of crds) await createOrReplace(credentials, crd, deadline);
  for (const crd of crds) await waitServed(credentials, crd, deadline);
}

async function createOrReplace(credentials: ApiCredentials, crd: Crd, deadline: number): Promise<void> {
  const body = { ...crd, metadata: { ...crd.metadata } };
  delete body.status;
  delete body.metadata.resourceVersion;
  const created = await requestWithRetry(credentials, 'POST', CRDS_PATH, deadline, { body });
  if (created.status === 201 || created.status === 200) return;
  if (created.status !== 409) throw new ApiError('POST', CRDS_PATH, created);
  const path = `${CRDS_PATH}/${crd.metadata.name}`;
  for (;;) {
    const current = expectJson<Crd>('GET', path, await requestWithRetry(credentials, 'GET', path, deadline));
    body.metadata.resourceVersion = current.metadata.resourceVersion;
    const replaced = await requestWithRetry(credentials, 'PUT', path, deadline, { body });
    if (replaced.status === 200) return;
    // Someone (the apiserver itself, setting status) changed it between our GET and PUT.
    if (replaced.status !== 409 || Date.now() >= deadline) throw new ApiError('PUT', path, replaced);
  }
}

/** Polls: a watch would need more machinery than the second this usually takes. */
async function waitServed(credentials: ApiCredentials, crd: Crd, deadline: number): Promise<void> {
  const name = crd.metadata.name;
  const path = `${CRDS_PATH}/${name}`;
  let lastProblem = '';
  while (Date.now() < deadline) {
    const current = expectJson<Crd>('GET', path, await requestWithRetry(credentials, 'GET', path, deadline));
    const established = current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    if (!established) {
      lastProblem = `not Established (conditions: ${JSON.stringify(current.status?.conditions ?? [])})`;
    } else {
      const unserved = await unservedVersions(credentials, current, deadline);
      if (unserved.length === 0) return;
      lastProblem = `not yet in discovery: ${unserved.join(', ')}`;
    }
    await sleep(50);
  }
  throw new Error(`CRD ${name} is ${lastProblem} after the deadline`);
}

async function unservedVersions(credentials: ApiCredentials, crd: Crd, deadline: number): Promise<string[]> {
  const missing: string[] = [];
  for (const version of crd.spec.versions.filter((v) => v.served)) {
    const groupVersion = `/apis/${crd.spec.group}/${version.name}`;
    const response = await requestWithRetry(credentials, 'GET', groupVersion, deadline);
    const resources = response.status === 200 ? (
      JSON.parse(response.text) as { resources?: { name: string }[] }
    ).resources ?? [] : [];
    if (!resources.some((r) => r.name === crd.spec.names.plural)) missing.push(`${crd.spec.group}/${version.name}`);
  }
  return missing;
}
