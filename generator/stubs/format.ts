/**
 * One pinned formatting of stub code, so a stub reads the same in a new file and when added to an
 * existing one. Existing user code is never passed through it: only the statements kopf-gen adds.
 */
import { Project, ts } from 'ts-morph';
import type { FormatCodeSettings, SourceFile } from 'ts-morph';

function settings(newLine: string): FormatCodeSettings {
  return {
    indentSize: 2,
    tabSize: 2,
    convertTabsToSpaces: true,
    newLineCharacter: newLine,
    semicolons: ts.SemicolonPreference.Insert,
    insertSpaceAfterOpeningAndBeforeClosingNonemptyBraces: true,
    insertSpaceAfterOpeningAndBeforeClosingTemplateStringBraces: false,
    insertSpaceBeforeFunctionParenthesis: false,
  };
}

/** A source file of its own, in memory: ts-morph never reads or writes the disk for us. */
export function parseSource(path: string, text: string): SourceFile {
  const project = new Project({ useInMemoryFileSystem: true, skipFileDependencyResolution: true });
  return project.createSourceFile(path, text, { overwrite: true });
}

export function formatWholeFile(path: string, text: string): string {
  const sf = parseSource(path, text);
  sf.formatText(settings(newLineOf(text)));
  return sf.getFullText();
}

/**
 * Formats only the top-level statements that start inside the given ranges of `text`, each on
 * its own; everything else stays byte for byte.
 */
export function formatStatementsIn(path: string, text: string, ranges: readonly (readonly [number, number])[]): string {
  const sf = parseSource(path, text);
  const inside = (pos: number) => ranges.some(([from, to]) => pos >= from && pos < to);
  const indices = sf.getStatements().flatMap((s, i) => (inside(s.getStart()) ? [i] : []));
  // Last first, so that formatting one statement never moves the ones still to be formatted.
  for (const i of indices.reverse()) sf.getStatements()[i].formatText(settings(newLineOf(text)));
  return sf.getFullText();
}

export function newLineOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}
