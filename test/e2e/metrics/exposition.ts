/**
 * Reading the Prometheus text exposition in tests: the value of one series, named by its metric
 * and its exact set of labels.
 */

/** One sample line: its metric, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function samples(text: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map((m) => [m[1]!, m[2]!]));
    found.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return found;
}

/** The value of the series with exactly these labels; `undefined` if there is none. */
export function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels);
  return samples(text).find((s) => s.name === name
    && Object.keys(s.labels).length === wanted.length
    && wanted.every(([k, v]) => s.labels[k] === v))?.value;
}

/** The sum over the series that have at least these labels (0 if none). */
export function total(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels);
  return samples(text)
    .filter((s) => s.name === name && wanted.every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/** Scrapes the endpoint: its text, after checking the answer is a 200 in Prometheus's text format. */
export async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}: ${text.slice(0, 200)}`);
  if (!response.headers.get('content-type')?.startsWith('text/plain')) throw new Error('Not the text exposition.');
  return text;
}

/** Scrapes until `accept` holds: polled, as nothing announces a gauge's change (a watch going stale). */
export async function scrapeUntil(url: string, accept: (text: string) => boolean, timeout = 60_000): Promise<string> {
  const deadline = Date.now() + timeout;
  let text = '';
  while (Date.now() < deadline) {
    text = await scrape(url);
    if (accept(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`The metrics did not come to what was expected in ${timeout} ms; last:\n${text}`);
}
