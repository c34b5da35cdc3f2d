/**
 * Handler ids: the key under which progress is stored on the object and results go into status.
 * They must be stable across restarts and between this runtime and Kopf, so they come from
 * function names (as Kopf uses Python function names), never from registration order.
 */

export type HandlerId = string;

export class RegistrationError extends Error {
  constructor(message: string) { super(message); this.name = 'RegistrationError'; }
}

/** The id of a handler: the explicit `id`, else the function's name; plus Kopf's field suffix. */
export function handlerId(
  fn: Function,
  options: { id?: string; field?: string | readonly string[] },
  what: string,
): HandlerId {
  const base = options.id ?? fn.name;
  if (!base || base === 'anonymous' || base.startsWith('bound ')) {
    throw new RegistrationError(
      `${what}: the handler has no name, and so no stable id to store its progress under. ` +
      `Use a named function (\`async function create_fn(…) {…}\`) or pass \`{ id: 'create_fn' }\` in the options.`);
  }
  const { field: path } = options;
  const field = path === undefined ? '' : typeof path === 'string' ? path : path.join('.');
  return field ? `${base}/${field}` : base;
}

/** Sub-handler ids are nested under their parent's: `parent/child`. */
export function childId(parent: HandlerId | null, id: HandlerId): HandlerId {
  return parent ? `${parent}/${id}` : id;
}
