/**
 * What an existing handler file already has: the bindings of kopf's `on` and of the kind's
 * descriptor, the handlers it registers for the kind, the names it declares, and the stubs the
 * user declined. Read with ts-morph; nothing here changes the file.
 */
import { Node, SyntaxKind, ts } from 'ts-morph';
import type { ImportDeclaration, SourceFile } from 'ts-morph';
import { isStubEvent } from './stub-events.ts';
import type { StubEvent } from './stub-events.ts';
import { resolveSpecifier } from './layout.ts';

export interface HandlerFileSurvey {
  /** The expression that reaches kopf's `on` (`on`, an alias, or `kopf.on`), if imported. */
  readonly onRef: string | undefined;
  /** The local name of the kind's descriptor, if imported from one of the generated modules. */
  readonly kindRef: string | undefined;
  /** Events with a handler registered on the kind (`on.create(Kind, …)`). */
  readonly registered: ReadonlySet<StubEvent>;
  /** Every kind of handler registered on the kind (`create`, `reconcile`, `timer`, …). */
  readonly handlers: ReadonlySet<string>;
  /** Every name the file declares: imports, functions (also named function expressions), variables, classes. */
  readonly declared: ReadonlySet<string>;
  /** Events the user asked kopf-gen not to add back (`// kopf-gen: skip delete`). */
  readonly skipped: ReadonlySet<StubEvent>;
  /** Absolute paths of the files the file imports by relative specifiers, `.js` read as `.ts`. */
  readonly relativeImports: readonly string[];
  /** Where a new import goes: after the last import, else after the file's header comments. */
  readonly importAnchor: ImportAnchor;
}

/** A position in the file and what precedes it, which decides the line breaks around an insertion. */
export interface ImportAnchor {
  readonly position: number;
  readonly after: 'import' | 'header' | 'start';
}

export interface SurveyTarget {
  readonly file: string;
  /** The exported name of the kind's descriptor in the generated modules. */
  readonly typeName: string;
  /** Absolute paths of the generated modules that export the kind's descriptor. */
  readonly kindModules: readonly string[];
}

const KOPF = 'kopf';
/**
 * `kopf-gen: skip delete` at the start of a comment line: a line comment (`//`), a block comment's
 * first line (`/*`, `/**`) or one of its continuation lines (`*`), where JSDoc blocks put it.
 */
const SKIP_DIRECTIVE = /^[ \t]*(?:\/\/+|\/\*+|\*+)[ \t]*kopf-gen:[ \t]*skip[ \t]+([a-z][a-z ,]*)/gm;

export function surveyHandlerFile(sf: SourceFile, target: SurveyTarget): HandlerFileSurvey {
  const imports = sf.getImportDeclarations();
  const onRef = findOnBinding(imports);
  const kindBinding = findKindBinding(imports, target);
  const handlers = findRegistrations(sf, onRef, kindBinding?.local ?? target.typeName);
  return {
    onRef,
    kindRef: kindBinding?.local,
    registered: new Set([...handlers].filter(isStubEvent)),
    handlers,
    declared: findDeclaredNames(sf),
    skipped: findSkipDirectives(sf.getFullText()),
    relativeImports: imports.flatMap((d) => resolveSpecifier(target.file, d.getModuleSpecifierValue()) ?? []),
    importAnchor: imports.length ? { position: imports[imports.length - 1].getEnd(), after: 'import' } : headerAnchor(
      sf
    ),
  };
}

function findOnBinding(imports: readonly ImportDeclaration[]): string | undefined {
  for (const decl of imports) {
    if (decl.getModuleSpecifierValue() !== KOPF || decl.isTypeOnly()) continue;
    const namespace = decl.getNamespaceImport();
    if (namespace) return `${namespace.getText()}.on`;
    for (const named of decl.getNamedImports()) {
      if (named.getName() === 'on' && !named.isTypeOnly()) return named.getAliasNode()?.getText() ?? 'on';
    }
  }
  return undefined;
}

function findKindBinding(imports: readonly ImportDeclaration[], target: SurveyTarget): { local: string } | undefined {
  for (const decl of imports) {
    if (decl.isTypeOnly()) continue;
    const resolved = resolveSpecifier(target.file, decl.getModuleSpecifierValue());
    if (!resolved || !target.kindModules.includes(resolved)) continue;
    for (const named of decl.getNamedImports()) {
      if (named.getName() === target.typeName && !named.isTypeOnly()) {
        return { local: named.getAliasNode()?.getText() ?? target.typeName };
      }
    }
  }
  return undefined;
}

function findRegistrations(sf: SourceFile, onRef: string | undefined, kindRef: string): Set<string> {
  const events = new Set<string>();
  for (const call of sf.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const callee = call.getExpression();
    if (!Node.isPropertyAccessExpression(callee)) continue;
    const event = callee.getName();
    if (!isOnReference(callee.getExpression().getText(), onRef)) continue;
    if (call.getArguments()[0]?.getText() === kindRef) events.add(event);
  }
  return events;
}

/** The imported binding, or any `on`/`x.on` (kopf's `on` reached some other way, e.g. re-exported). */
function isOnReference(text: string, onRef: string | undefined): boolean {
  return text === onRef || text === 'on' || text.endsWith('.on');
}

function findDeclaredNames(sf: SourceFile): Set<string> {
  const names = new Set<string>();
  for (const decl of sf.getImportDeclarations()) {
    const local = decl.getDefaultImport() ?? decl.getNamespaceImport();
    if (local) names.add(local.getText());
    for (const named of decl.getNamedImports()) names.add(named.getAliasNode()?.getText() ?? named.getName());
  }
  const declarations = [
    ...sf.getDescendantsOfKind(SyntaxKind.FunctionDeclaration),
    ...sf.getDescendantsOfKind(SyntaxKind.FunctionExpression),
    ...sf.getDescendantsOfKind(SyntaxKind.ClassDeclaration),
    ...sf.getDescendantsOfKind(SyntaxKind.VariableDeclaration),
  ];
  for (const decl of declarations) {
    const name = decl.getNameNode();
    if (name && Node.isIdentifier(name)) names.add(name.getText());
  }
  return names;
}

function findSkipDirectives(text: string): Set<StubEvent> {
  const skipped = new Set<StubEvent>();
  for (const match of text.matchAll(SKIP_DIRECTIVE)) {
    for (const word of match[1].split(/[\s,]+/)) if (isStubEvent(word)) skipped.add(word);
  }
  return skipped;
}

/**
 * Where imports go in a file without any: after the comments that head the file (a comment block
 * followed by a blank line belongs to the file, not to the first statement), else at its start.
 */
function headerAnchor(sf: SourceFile): ImportAnchor {
  const text = sf.getFullText();
  const start = text.startsWith('#!') ? text.indexOf('\n') + 1 : 0;
  let anchor: ImportAnchor = { position: start, after: 'start' };
  for (const range of ts.getLeadingCommentRanges(text, start) ?? []) {
    if (/^[ \t]*\r?\n[ \t]*\r?\n/.test(text.slice(range.end))) anchor = { position: range.end, after: 'header' };
  }
  return anchor;
}
