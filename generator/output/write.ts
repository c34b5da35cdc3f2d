/**
 * The one write step of a run. The output folder is written whole or not at all: everything goes
 * to a fresh sibling folder, which then replaces the old one by renames, so a reader sees the old
 * output or the new one, never a mix. The stubs in the user's folders are written in the same step
 * (user-files.ts): every path is checked and every file staged before the first is put in place,
 * and a failure takes back what was put in place, so a run writes everything or nothing.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UnsafePathError, unsafePaths } from '../paths.ts';
import { exists } from './tree.ts';
import { stageUserFiles, userFileProblems } from './user-files.ts';
import type { StagedUserFiles, UserFiles } from './user-files.ts';

export type { UserFiles } from './user-files.ts';

/** Everything a run writes. */
export interface OutputPlan {
  /** The generated folder and its whole new content; absent when it is up to date. */
  readonly generated?: { readonly outDir: string; readonly files: ReadonlyMap<string, string> };
  /** The stubs to create or extend; absent without a stubs folder. */
  readonly userFiles?: UserFiles;
}

/** UnsafePathError when any file of the plan would go where it must not; nothing is written either way. */
export function checkOutput(plan: OutputPlan): void {
  if (plan.generated) {
    const problems = unsafePaths(plan.generated.files.keys());
    if (problems.length) throw new UnsafePathError(plan.generated.outDir, problems);
  }
  if (plan.userFiles) {
    const problems = userFileProblems(plan.userFiles);
    if (problems.length) throw new UnsafePathError(plan.userFiles.folders.join(' and '), problems);
  }
}

/**
 * Checks every path, stages the stubs and the new folder, puts the stubs in place, then swaps the
 * folder: a failure at any step removes what was staged and takes back what was put in place.
 */
export function writeOutput(plan: OutputPlan): void {
  checkOutput(plan);
  const stubs = stageUserFiles(plan.userFiles?.writes ?? []);
  let staging: string | undefined;
  let placed: ReturnType<StagedUserFiles['commit']>;
  try {
    if (plan.generated) staging = stageFolder(plan.generated.outDir, plan.generated.files);
    placed = stubs.commit();
  } catch (e) {
    stubs.discard();
    if (staging) rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  try {
    if (plan.generated && staging) swapFolder(plan.generated.outDir, staging);
  } catch (e) {
    placed.undo();
    throw e;
  }
  placed.finish();
}

/** The new content in a fresh folder beside `outDir`; removed again if any file fails. */
function stageFolder(outDir: string, files: ReadonlyMap<string, string>): string {
  const parent = dirname(outDir);
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(join(parent, `.${basename(outDir)}.kopf-gen-`));
  try {
    for (const [path, text] of files) {
      const target = join(staging, ...path.split('/'));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text);
    }
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  return staging;
}

/** The staged folder in place of the old one, by renames; on failure the old one is back. */
function swapFolder(outDir: string, staging: string): void {
  if (!exists(outDir)) {
    renameSync(staging, outDir);
    return;
  }
  const retired = `${staging}.old`;
  renameSync(outDir, retired);
  try {
    renameSync(staging, outDir);
  } catch (e) {
    renameSync(retired, outDir);
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  rmSync(retired, { recursive: true, force: true });
}
