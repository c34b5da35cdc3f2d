/**
 * Files in the user's folders that kopf-gen writes once (handler and conversion stubs): a new file
 * is created only where nothing is, an existing one is replaced by its extended text. Each is first
 * written beside its place under a temporary name, then put in place by a link or a rename, so a
 * failure before the last one is put in place can take back every one before it.
 */
import {
  existsSync, linkSync, lstatSync, mkdirSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, relative, sep } from 'node:path';
import { isInside } from '../paths.ts';
import type { StubsWrite } from '../stubs/index.ts';

export interface UserFiles {
  /** The folders the writes must stay in (`--stubs` and the conversions beside it). */
  readonly folders: readonly string[];
  readonly writes: readonly StubsWrite[];
}

/** Why each write cannot go where it says: outside every folder, a file where a folder must be, a link to nothing. */
export function userFileProblems({ folders, writes }: UserFiles): string[] {
  return writes.flatMap(({ file, create }) => {
    const folder = folders.find((f) => isInside(file, f));
    if (folder === undefined) return [`${file}: outside ${folders.join(' and ')}`];
    const names = relative(folder, dirname(file)).split(sep).filter(Boolean);
    const dirs = names.map((_, i) => join(folder, ...names.slice(0, i + 1)));
    for (const dir of [folder, ...dirs]) {
      const stat = statSync(dir, { throwIfNoEntry: false });
      if (stat && !stat.isDirectory()) return [`${dir}: not a folder`];
    }
    const link = lstatSync(file, { throwIfNoEntry: false });
    if (create && link?.isSymbolicLink() && !existsSync(file)) return [`${file}: a link to nothing`];
    return [];
  });
}

/** The writes, each under a temporary name beside its file; nothing the user sees has changed yet. */
export interface StagedUserFiles {
  /** Puts every file in place, or none (it throws); `undo` then takes them all back. */
  commit(): { undo(): void; finish(): void };
  /** Removes what staging wrote: the temporary files and the folders it made (for a failure before `commit`). */
  discard(): void;
}

interface Staged {
  readonly write: StubsWrite;
  readonly temp: string;
}

export function stageUserFiles(writes: readonly StubsWrite[]): StagedUserFiles {
  const staged: Staged[] = [];
  // Folders made for new files, removed with them when empty: a file that appeared in one is kept.
  const made: { top: string; deepest: string }[] = [];
  const removeTemps = () => { for (const { temp } of staged) rmSync(temp, { force: true }); };
  const discard = () => {
    removeTemps();
    for (const { top, deepest } of [...made].reverse()) removeEmptyFolders(deepest, top);
  };
  try {
    for (const write of writes) {
      const top = mkdirSync(dirname(write.file), { recursive: true });
      if (top !== undefined) made.push({ top, deepest: dirname(write.file) });
      const temp = siblingName(write.file, 'new');
      writeFileSync(temp, write.text, { flag: 'wx' });
      staged.push({ write, temp });
    }
  } catch (e) {
    discard();
    throw e;
  }
  return {
    discard,
    commit: () => {
      const placed = commitAll(staged, discard);
      removeTemps();
      return { undo: () => { placed.undo(); discard(); }, finish: placed.finish };
    },
  };
}

/**
 * Created files first, by `link` (which refuses a file that appeared since the plan), then the
 * extended ones, by `rename` after a link to the old text: each step is undone in reverse order.
 */
function commitAll(staged: readonly Staged[], discard: () => void): { undo(): void; finish(): void } {
  const undos: (() => void)[] = [];
  const backups: string[] = [];
  const undo = () => { for (const step of [...undos].reverse()) step(); };
  const finish = () => { for (const backup of backups) rmSync(backup, { force: true }); };
  const ordered = [...staged].sort((a, b) => Number(b.write.create) - Number(a.write.create));
  try {
    for (const { write: { file, create }, temp } of ordered) {
      if (create) {
        linkSync(temp, file);
        undos.push(() => rmSync(file, { force: true }));
      } else {
        const backup = siblingName(file, 'old');
        linkSync(file, backup);
        backups.push(backup);
        renameSync(temp, file);
        undos.push(() => renameSync(backup, file));
      }
    }
  } catch (e) {
    undo();
    finish();
    discard();
    throw e;
  }
  return { undo, finish };
}

/** `deepest` and its parents up to `top`, each removed if empty; the first that is not stops it. */
function removeEmptyFolders(deepest: string, top: string): void {
  for (let dir = deepest; ; dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
    if (dir === top) return;
  }
}

function siblingName(file: string, what: string): string {
  return join(dirname(file), `.${basename(file)}.kopf-gen-${what}-${randomBytes(4).toString('hex')}`);
}
