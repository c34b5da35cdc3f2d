/** Small text helpers for progress lines and error messages. */

/** `2m05s`, `12.3s`: short enough for progress lines. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** The last `count` non-empty lines of a text, for error messages that show a log's end. */
export function lastLines(text: string, count: number): string {
  return text.split('\n').filter((line) => line.trim() !== '').slice(-count).join('\n');
}
