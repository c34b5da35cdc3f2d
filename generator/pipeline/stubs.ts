/**
 * The handler-stubs step, delegated to generator/stubs/ when that module is present.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Model } from '../model/types.ts';

export type StubsOutcome =
  | { readonly ran: true; readonly report: unknown }
  | { readonly ran: false; readonly reason: string };

export async function runStubs(model: Model, stubsDir: string, outDir: string): Promise<StubsOutcome> {
  const url = new URL('../stubs/index.ts', import.meta.url);
  if (!existsSync(fileURLToPath(url)))
    return { ran: false, reason: 'handler stubs are not available in this kopf-gen (no generator/stubs/index.ts)' };
  const loaded: unknown = await import(url.href);
  const generateStubs = typeof loaded === 'object' && loaded !== null ? (
    loaded as { generateStubs?: unknown }
  ).generateStubs : undefined;
  if (typeof generateStubs !== 'function')
    return { ran: false, reason: 'generator/stubs/index.ts has no generateStubs()' };
  const report: unknown = await (generateStubs as (m: Model, o: { stubsDir: string; outDir: string }) => unknown)(
    model,
    { stubsDir, outDir },
  );
  return { ran: true, report };
}
