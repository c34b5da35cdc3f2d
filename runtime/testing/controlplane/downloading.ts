/**
 * Downloading the prebuilt control plane (envtest's binaries, `envtest.ts`) into the cache: the
 * index read, the archive for this platform fetched into a temporary file while its SHA-512 is
 * computed, compared with the index's, and only then unpacked (`untar.ts`) into a temporary folder
 * that is renamed into place when whole, with the binaries' digests recorded (`verified.ts`). A
 * lock keeps parallel processes from downloading at once; a failure leaves nothing in the cache.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { controlPlaneCacheDir } from './cache.ts';
import {
  DownloadError, chooseArchive, envtestFolderName, envtestPlatform, indexUrl, INDEX_VARIABLE, type EnvtestArchive,
} from './envtest.ts';
import { acquireLock } from './locks.ts';
import { PREFIX, defaultReporter, type ProgressReporter } from './progress.ts';
import { formatDuration } from './text.ts';
import { extractFiles } from './untar.ts';
import { firstVerified, freshFolderName, rootRefusal, sha512Of, writeRecord, type Digests } from './verified.ts';
import type { BinaryName } from './versions.ts';

export interface DownloadOptions {
  env?: NodeJS.ProcessEnv;
  onProgress?: ProgressReporter;
  /** How often to say how much has come during the download. */
  heartbeatMs?: number;
  signal?: AbortSignal;
}

const MAX_INDEX_BYTES = 8 * 1024 * 1024;
const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
/** The index is small: it comes whole within this, or the network is not there. */
const INDEX_TIMEOUT_MS = 30_000;
/** The archive may take long on a slow line, but not stall. */
const STALL_TIMEOUT_MS = 60_000;
const BINARIES = ['kube-apiserver', 'etcd', 'kubectl'];
const REQUIRED = ['kube-apiserver', 'etcd'];

/** Downloads, verifies and unpacks the binaries into the cache; returns their folder. Throws DownloadError. */
export async function downloadBinaries(options: DownloadOptions = {}): Promise<string> {
  const env = options.env ?? process.env;
  const report = options.onProgress ?? defaultReporter;
  const index = indexUrl(env);
  if (!index) throw new DownloadError(`downloads are off (${INDEX_VARIABLE}=off)`);
  const platform = envtestPlatform();
  if (!platform) throw new DownloadError(`no prebuilt binaries are published for ${process.platform}/${process.arch}`);
  const indexText = await fetchBytes(index, MAX_INDEX_BYTES, { timeoutMs: INDEX_TIMEOUT_MS, signal: options.signal });
  const archive = chooseArchive(indexText.toString('utf8'), index, platform);
  const root = controlPlaneCacheDir(env);
  const name = envtestFolderName(archive.version, platform);
  const refused = rootRefusal(root);
  if (refused) throw new DownloadError(`not downloading into ${refused}`);
  const lock = await acquireLock(join(root, 'download.lock'), {
    signal: options.signal,
    onWait: (owner, waited) => {
      report(`${PREFIX} waiting for another download (process ${owner}) to finish: ${formatDuration(waited)}`);
    },
  });
  try {
    // Under the lock: what another process downloaded meanwhile is verified like anything else.
    const { folder } = firstVerified(root, name);
    if (folder) {
      report(`${PREFIX} downloaded by another process meanwhile: ${folder.dir}`);
      return folder.dir;
    }
    const target = freshFolderName(root, name);
    await install(archive, root, target, report, options);
    return target;
  } finally {
    lock.release();
  }
}

async function install(
  archive: EnvtestArchive, root: string, target: string, report: ProgressReporter, options: DownloadOptions,
): Promise<void> {
  const started = Date.now();
  removeLeftovers(root);
  const temporary = join(root, `.${basename(target)}.${process.pid}`);
  const file = `${temporary}.tar.gz`;
  let unpacked: string | undefined;
  try {
    report(`${PREFIX} downloading the prebuilt binaries of Kubernetes v${archive.version} (envtest): ${archive.url}`);
    const sha512 = await downloadFile(archive.url, file, report, options);
    if (sha512 !== archive.sha512) {
      throw new DownloadError(`${archive.name} does not match the index's SHA-512 (got ${sha512.slice(0, 16)}…, `
        + `expected ${archive.sha512.slice(0, 16)}…): refused`);
    }
    unpacked = mkdtempSync(`${temporary}-`);
    const written = await extractFiles(file, unpacked, new Set(BINARIES), { maxBytes: MAX_UNPACKED_BYTES });
    const missing = REQUIRED.filter((name) => !written.includes(name));
    if (missing.length) throw new DownloadError(`${archive.name} holds no ${missing.join(' and ')}`);
    recordUnpacked(unpacked, written);
    renameSync(unpacked, target);
    report(`${PREFIX}   SHA-512 verified, unpacked into ${target} in ${formatDuration(Date.now() - started)}`);
  } catch (error) {
    if (error instanceof DownloadError || options.signal?.aborted) throw error;
    throw new DownloadError(`${archive.name}: ${(error as Error).message}`);
  } finally {
    rmSync(file, { force: true });
    if (unpacked) rmSync(unpacked, { recursive: true, force: true });
  }
}

/** The digests of the binaries unpacked from the verified archive, recorded before they are in place. */
function recordUnpacked(dir: string, names: readonly string[]): void {
  const digests: Digests = {};
  for (const name of names as BinaryName[]) {
    chmodSync(join(dir, name), 0o755);
    digests[name] = sha512Of(join(dir, name));
  }
  writeRecord(dir, digests);
}

/** What a download killed halfway left: with the lock held, no other download is running. */
function removeLeftovers(root: string): void {
  for (const entry of readdirSync(root)) {
    if (entry.startsWith('.envtest-')) rmSync(join(root, entry), { recursive: true, force: true });
  }
}

/** Fetches the URL into the file; returns the content's SHA-512 (hex). */
async function downloadFile(
  url: string, path: string, report: ProgressReporter, options: DownloadOptions,
): Promise<string> {
  const hash = createHash('sha512');
  const out = await open(path, 'wx', 0o600);
  const started = Date.now();
  let received = 0;
  let total = 0;
  const heartbeat = setInterval(() => {
    const of = total ? ` of ${megabytes(total)}` : '';
    report(`${PREFIX}   downloaded ${megabytes(received)}${of} (${formatDuration(Date.now() - started)})`);
  }, options.heartbeatMs ?? 10_000);
  try {
    await stream(url, MAX_ARCHIVE_BYTES, { stallMs: STALL_TIMEOUT_MS, signal: options.signal }, {
      onLength: (length) => { total = length; },
      onChunk: async (chunk) => {
        received += chunk.length;
        hash.update(chunk);
        await out.write(chunk);
      },
    });
  } finally {
    clearInterval(heartbeat);
    await out.close();
  }
  return hash.digest('hex');
}

async function fetchBytes(url: string, maxBytes: number, limits: Limits): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await stream(url, maxBytes, limits, { onChunk: (chunk) => { chunks.push(chunk); } });
  return Buffer.concat(chunks);
}

interface Limits {
  /** The whole request, body included. */
  timeoutMs?: number;
  /** The longest wait for the next bytes. */
  stallMs?: number;
  signal?: AbortSignal;
}

interface Sink {
  onLength?: (length: number) => void;
  onChunk: (chunk: Buffer) => void | Promise<void>;
}

/** GETs the URL (redirects followed) and hands its body over piece by piece; refuses more than `maxBytes`. */
async function stream(url: string, maxBytes: number, limits: Limits, sink: Sink): Promise<void> {
  const stalled = new AbortController();
  const signals = [stalled.signal, ...(limits.signal ? [limits.signal] : [])];
  if (limits.timeoutMs) signals.push(AbortSignal.timeout(limits.timeoutMs));
  const { stallMs } = limits;
  let timer: NodeJS.Timeout | undefined;
  const watch = (): void => {
    clearTimeout(timer);
    if (stallMs) timer = setTimeout(() => stalled.abort(new Error(`no data for ${stallMs / 1000} s`)), stallMs);
  };
  try {
    watch();
    const response = await fetch(url, { signal: AbortSignal.any(signals), redirect: 'follow' });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      throw new DownloadError(`GET ${url} answered ${response.status} ${response.statusText}`.trimEnd());
    }
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > maxBytes) throw new DownloadError(`${url} is ${megabytes(length)}, more than ${megabytes(maxBytes)}`);
    if (length) sink.onLength?.(length);
    let received = 0;
    for await (const chunk of response.body) {
      watch();
      received += chunk.length;
      if (received > maxBytes) throw new DownloadError(`${url} is more than ${megabytes(maxBytes)}`);
      await sink.onChunk(Buffer.from(chunk));
    }
  } catch (error) {
    if (error instanceof DownloadError || limits.signal?.aborted) throw error;
    throw new DownloadError(`GET ${url}: ${networkReason(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** `fetch failed` says little; its cause says what (a refused connection, an unknown host, a timeout). */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const reason = cause instanceof Error ? cause : error;
  if (reason instanceof Error) {
    const code = (reason as NodeJS.ErrnoException).code;
    return code && !reason.message.includes(code) ? `${reason.message} (${code})` : reason.message;
  }
  return String(reason);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
