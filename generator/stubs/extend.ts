/**
 * What an existing handler file lacks (a handler for an event it neither registers nor declines)
 * and, when the user asks for it (`--add-stubs`), adds only that: a stub for each such event and
 * the imports those stubs need. Existing text is never changed or moved.
 */
import { STUB_EVENTS, stubFunctionName, stubPartialName } from './stub-events.ts';
import type { StubEvent } from './stub-events.ts';
import { formatStatementsIn, newLineOf, parseSource } from './format.ts';
import { surveyHandlerFile } from './survey.ts';
import type { HandlerFileSurvey, ImportAnchor } from './survey.ts';
import { TEMPLATE_GLOBALS } from './template.ts';
import type { StubTemplates } from './template.ts';

export interface HandlerFileTarget {
  readonly file: string;
  /** The kind as the API writes it, for the stubs' messages. */
  readonly kind: string;
  /** The exported name of the kind's descriptor in the generated modules. */
  readonly typeName: string;
  /** Generated modules that export the kind's descriptor; an import of any of them is enough. */
  readonly kindModules: readonly string[];
  /** The specifier a missing import of the descriptor uses. */
  readonly kindSpecifier: string;
}

export interface Review {
  readonly survey: HandlerFileSurvey;
  /** Events the file neither handles nor declines, in stub order. */
  readonly missing: readonly StubEvent[];
  /** Why the file could not be read for handlers (then nothing is missing and nothing is added). */
  readonly unreadable?: string;
}

export interface Extension extends Review {
  readonly text: string;
  /** Short phrases naming what was added; empty when the file already had everything. */
  readonly added: readonly string[];
}

export function reviewHandlerFile(text: string, target: HandlerFileTarget): Review {
  const sf = parseSource(target.file, text);
  const survey = surveyHandlerFile(sf, target);
  // A file that does not parse may hide handlers from the survey: adding stubs could duplicate them.
  const syntaxErrors = sf.getProject().getProgram().getSyntacticDiagnostics(sf).length;
  if (syntaxErrors) return { survey, missing: [], unreadable: `it has ${syntaxErrors} syntax error(s)` };
  return { survey, missing: missingEvents(survey, target.typeName) };
}

export function extendHandlerFile(text: string, target: HandlerFileTarget, templates: StubTemplates): Extension {
  const review = reviewHandlerFile(text, target);
  const { survey, missing } = review;
  if (!missing.length) return { ...review, text, added: [] };

  const nl = newLineOf(text);
  const imports: string[] = [];
  const added: string[] = [];
  const addImport = (partial: string, data: object) => {
    const line = render(templates, partial, data, nl);
    imports.push(line);
    added.push(line.replace(/;$/, ''));
  };

  const onRef = survey.onRef ?? freeName('on', 'kopfOn', survey.declared);
  if (!survey.onRef) addImport('import-on', { alias: onRef === 'on' ? '' : onRef });
  const taken = new Set([...survey.declared, ...TEMPLATE_GLOBALS]);
  const kindRef = survey.kindRef ?? freeName(target.typeName, `${target.typeName}Resource`, taken);
  if (!survey.kindRef) {
    addImport(
      'import-kind',
      { kind: target.typeName, alias: kindRef === target.typeName ? '' : kindRef, specifier: target.kindSpecifier },
    );
  }
  const stubs = missing.map((event) => {
    const fnName = stubFunctionName(event, target.typeName);
    added.push(`${onRef}.${event}(${kindRef}, ${fnName})`);
    const data = { partial: stubPartialName(event), onRef, kindRef, kind: target.kind, fnName };
    return render(templates, data.partial, data, nl);
  });

  const withImports = imports.length ? insertImports(text, survey.importAnchor, imports.join(nl), nl) : {
    text,
    range: undefined,
  };
  const withStubs = appendStubs(withImports.text, stubs, nl);
  const ranges = [withStubs.range, ...(withImports.range ? [withImports.range] : [])];
  return { ...review, text: formatStatementsIn(target.file, withStubs.text, ranges), added };
}

function missingEvents(survey: HandlerFileSurvey, typeName: string): StubEvent[] {
  return STUB_EVENTS.filter((event) =>
    !survey.registered.has(event) && !survey.skipped.has(event) && !survey.declared.has(
      stubFunctionName(event, typeName)
    ));
}

function freeName(preferred: string, fallback: string, taken: ReadonlySet<string>): string {
  if (!taken.has(preferred)) return preferred;
  let name = fallback;
  for (let n = 2; taken.has(name); n++) name = `${fallback}${n}`;
  return name;
}

function render(templates: StubTemplates, partial: string, data: object, nl: string): string {
  return templates.partial(partial, data).trimEnd().replace(/\r?\n/g, nl);
}

type Range = readonly [number, number];

function insertImports(text: string, anchor: ImportAnchor, block: string, nl: string): { text: string; range: Range } {
  const before = anchor.after === 'import' ? nl : anchor.after === 'header' ? nl + nl : '';
  const after = anchor.after === 'start' ? nl + (text.length > anchor.position ? nl : '') : '';
  const from = anchor.position + before.length;
  const inserted = before + block + after;
  return {
    text: text.slice(0, anchor.position) + inserted + text.slice(anchor.position),
    range: [from, from + block.length],
  };
}

function appendStubs(text: string, stubs: readonly string[], nl: string): { text: string; range: Range } {
  const lead = text.length === 0 ? '' : (text.endsWith(nl) ? '' : nl) + nl;
  const from = text.length + lead.length;
  const body = stubs.join(nl + nl) + nl;
  return { text: text + lead + body, range: [from, from + body.length] };
}
