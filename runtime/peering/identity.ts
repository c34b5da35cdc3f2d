/**
 * Who this operator is among its peers, as Kopf names itself: the pod's name when `POD_ID` is set
 * (from the downward API), else `user@host/YYYYmmddHHMMSS/xyz`, which says who runs it where and
 * since when. `kopf freeze` and `kopf resume` use `user@host` alone, so that a resume finds the
 * freeze's record.
 */
import { hostname, userInfo } from 'node:os';

const RANDOM_CHARS = 'abcdefhijklmnopqrstuvwxyz0123456789';

export function detectOwnIdentity(options: { manual?: boolean; env?: NodeJS.ProcessEnv; now?: Date } = {}): string {
  const env = options.env ?? process.env;
  if (env.POD_ID !== undefined) return env.POD_ID;
  const who = `${currentUser(env)}@${descriptiveHostname()}`;
  if (options.manual) return who;
  const now = (options.now ?? new Date()).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const random = Array.from({ length: 3 }, () => RANDOM_CHARS[Math.floor(Math.random() * RANDOM_CHARS.length)]).join(
    ''
  );
  return `${who}/${now}/${random}`;
}

function currentUser(env: NodeJS.ProcessEnv): string {
  try {
    return userInfo().username;
  } catch {
    // A container's user may have no passwd entry.
    return env.USER ?? env.LOGNAME ?? String(process.getuid?.() ?? 'unknown');
  }
}

/** The host's name without the suffixes that identify nothing. */
function descriptiveHostname(): string {
  let name = hostname();
  while (name.endsWith('.local') || name.endsWith('.localdomain')) name = name.replace(/\.(local|localdomain)$/, '');
  return name;
}
