/**
 * Fixtures produced by running Python Kopf 1.44 (scripts/kopf-fixtures.py): Kopf's own answers.
 */
import { readFileSync } from 'node:fs';

export function kopfFixture<T>(name: string): T {
  const text = readFileSync(new URL(`../fixtures/kopf/${name}`, import.meta.url), 'utf8');
  const parsed = JSON.parse(text) as { kopf: string; data: T };
  if (!parsed.kopf.startsWith('1.44.'))
    throw new Error(`Fixture ${name} was produced by Kopf ${parsed.kopf}, not 1.44.`);
  return parsed.data;
}
