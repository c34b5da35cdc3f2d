/** Durations printed the way Kopf (Python's `timedelta`) prints them: `0:01:05.250000`. */
export function formatTimedelta(seconds: number): string {
  const micros = Math.round(seconds * 1e6);
  const days = Math.floor(micros / 86_400e6);
  let rest = micros - days * 86_400e6;
  const h = Math.floor(rest / 3_600e6); rest -= h * 3_600e6;
  const m = Math.floor(rest / 60e6); rest -= m * 60e6;
  const s = Math.floor(rest / 1e6); rest -= s * 1e6;
  const clock = `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}${rest ? `.${String(rest).padStart(6, '0')}` : ''}`;
  return days ? `${days} day${days === 1 ? '' : 's'}, ${clock}` : clock;
}

/** Seconds as Python prints a float: `1.0`, `0.5`, `60.0`. */
export function formatSeconds(seconds: number): string {
  return Number.isInteger(seconds) ? `${seconds}.0` : String(seconds);
}
