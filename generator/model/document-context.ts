/**
 * Where the model builder reports what it finds about one CRD document.
 */
import type { Diagnostic, PathSegment, Severity } from '../diagnostics/diagnostic.ts';
import type { Position } from '../input/yaml.ts';

export type Locator = (document: number, path: readonly PathSegment[]) => Position | undefined;

export class DocumentContext {
  readonly file: string;
  readonly document: number;
  readonly diagnostics: Diagnostic[] = [];
  private readonly locator: Locator | undefined;

  constructor(file: string, document: number, locator?: Locator) {
    this.file = file;
    this.document = document;
    this.locator = locator;
  }

  report(severity: Severity, path: readonly PathSegment[], message: string): void {
    this.diagnostics.push(
      this.located({ severity, file: this.file, document: this.document, path: [...path], message })
    );
  }

  /** The diagnostic with its line and column, when the path can be found. */
  located(d: Diagnostic): Diagnostic {
    if (d.line !== undefined || !d.path || !this.locator) return d;
    const at = this.locator(d.document ?? this.document, d.path);
    return at ? { ...d, line: at.line, column: at.column } : d;
  }

  error(path: readonly PathSegment[], message: string): void {
    this.report('error', path, message);
  }

  warn(path: readonly PathSegment[], message: string): void {
    this.report('warning', path, message);
  }

  get failed(): boolean {
    return this.diagnostics.some((d) => d.severity === 'error');
  }
}
