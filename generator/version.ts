/** kopf-gen's own version, from its package.json: recorded in the manifest. */
import { readFileSync } from 'node:fs';

export const GENERATOR_VERSION: string = (() => {
  const pkg: unknown = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
  const version = typeof pkg === 'object' && pkg !== null ? (pkg as { version?: unknown }).version : undefined;
  return typeof version === 'string' ? version : '0.0.0';
})();
