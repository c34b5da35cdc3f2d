/**
 * The handlebars templates of handler files: one for a whole new file, one partial per stub
 * and per import, so that a stub added to an existing file reads exactly as in a new one.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import { stringLiteral } from '../emit/syntax.ts';

/** Globals the stub templates use by name: a kind bound under one of these (`JSON`) would hide it. */
export const TEMPLATE_GLOBALS: ReadonlySet<string> = new Set(['JSON']);

const DEFAULT_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/stubs/', import.meta.url));

const SUFFIX = '.ts.hbs';
const FILE_TEMPLATE = 'handlers';

export interface OnImportData { readonly alias?: string }
export interface KindImportData { readonly kind: string; readonly alias?: string; readonly specifier: string }
export interface StubData {
  readonly partial: string;
  readonly onRef: string;
  readonly kindRef: string;
  readonly kind: string;
  readonly fnName: string;
}
export interface HandlerFileData {
  readonly kind: string;
  readonly group: string;
  readonly plural: string;
  readonly scopeText: string;
  readonly onImport: OnImportData;
  readonly kindImport: KindImportData;
  readonly stubs: readonly StubData[];
}

export interface StubTemplates {
  handlerFile(data: HandlerFileData): string;
  partial(name: string, data: object): string;
}

export function loadStubTemplates(dir: string = DEFAULT_TEMPLATES_DIR): StubTemplates {
  // An isolated environment: partials registered here never leak into other handlebars users.
  const hbs = Handlebars.create();
  registerEscapes(hbs);
  const compiled = new Map<string, Handlebars.TemplateDelegate>();
  for (const entry of readdirSync(dir).filter((e) => e.endsWith(SUFFIX)).sort()) {
    const name = entry.slice(0, -SUFFIX.length);
    const source = readFileSync(join(dir, entry), 'utf8');
    hbs.registerPartial(name, source);
    compiled.set(name, hbs.compile(source, { noEscape: true, strict: true }));
  }
  const render = (name: string, data: object): string => {
    const template = compiled.get(name);
    if (!template) throw new Error(`No template ${name}${SUFFIX} in ${dir}`);
    return template(data);
  };
  return {
    handlerFile: (data) => render(FILE_TEMPLATE, data),
    partial: render,
  };
}

/** `name`, or `kopf.on`: what a template may write where code expects a name. */
const REFERENCE = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const LINE_BREAKS = /\r\n?|[\n\u2028\u2029]/g;

/**
 * Output is TypeScript, not HTML, so handlebars' own escaping is off (`noEscape`) and every
 * value a template writes goes through the escape for where it lands: `{{inComment x}}` in a
 * comment, `{{inString x}}` inside quotes or backticks, `{{identifier x}}` where code names
 * something (refused unless it is a name). A test holds the templates to this.
 */
function registerEscapes(hbs: typeof Handlebars): void {
  hbs.registerHelper('inComment', (value: unknown) => String(value).replace(/\*\//g, '*\\/').replace(LINE_BREAKS, ' '));
  hbs.registerHelper('inString', (value: unknown) => {
    return stringLiteral(String(value)).slice(1, -1).replace(/[`$"]/g, '\\$&');
  });
  hbs.registerHelper('identifier', (value: unknown) => {
    const text = String(value);
    if (!REFERENCE.test(text)) throw new Error(`not a name for generated code: ${JSON.stringify(text)}`);
    return text;
  });
}
