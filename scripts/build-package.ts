/**
 * `node scripts/build-package.ts <runtime|generator|create> [--out DIR]`: a workspace package in the form
 * it is published in (default `<package>/dist/`, then `npm pack ./<package>/dist`).
 *
 * Node strips types only outside `node_modules`, so an installed package must be JavaScript: the
 * package's sources (not tests) are compiled with TypeScript into ESM `.js` + `.d.ts` + source maps,
 * with the repository's compiler options (tsconfig.json), relative `.ts` imports rewritten to `.js`.
 * Module-relative URLs (`new URL('…', import.meta.url)`) are rewritten the same way: a `.ts` target
 * becomes its `.js`, any other file or folder is copied into the output (keeping its path relative to
 * the package, or to the repository when it lies outside the package) and the URL points at the copy.
 * The output's package.json is the package's own, with `exports`/`bin` on the compiled files (a
 * command written in JavaScript is copied, its `.ts` imports pointed at theirs) and without
 * `scripts`/`devDependencies`; every package the code imports must be one of its dependencies,
 * and a dependency on another package of this workspace is pinned to that package's exact version:
 * they are released together (scripts/release.ts), so each is published with the ones it was built with.
 * The package's README and the licence (the package's own, else the repository's) are required.
 */
import {
  chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';
import { ENTRY_SOURCE } from './command-entries.ts';

const root = resolve(import.meta.dirname, '..');
export const PACKAGES = ['runtime', 'generator', 'create'] as const;
export type PackageDir = (typeof PACKAGES)[number];
const SHEBANG = '#!/usr/bin/env node';
const DOCS = ['README.md', 'LICENSE'];
/**
 * Source maps (with the sources in them) only where a user reads stack traces and steps through the
 * code: the runtime runs inside the user's operator. The generator and the scaffold are commands
 * whose failures are reported as messages; maps would be most of their size.
 */
const SOURCE_MAPS: ReadonlySet<PackageDir> = new Set(['runtime']);

export type Manifest = Record<string, unknown>;

export class BuildError extends Error {}

/** Where the package's files go in the output, and what is copied there besides compiled code. */
interface Layout {
  readonly pkgDir: string;
  readonly outDir: string;
  readonly sources: ReadonlySet<string>;
  readonly sourceMaps: boolean;
  /** Copies to make: output path → source path. */
  readonly assets: Map<string, string>;
}

function main(): void {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { out: { type: 'string' } } });
  const [name] = positionals;
  if (positionals.length !== 1 || !isPackageDir(name)) {
    throw new BuildError(`usage: build-package.ts <${PACKAGES.join('|')}> [--out DIR]`);
  }
  buildPackage(name, values.out);
}

/** Builds the package into `out` (empty or absent), else into `<package>/dist/`; returns its published manifest. */
export function buildPackage(name: PackageDir, out?: string): Manifest {
  const outDir = out ? resolve(out) : join(root, name, 'dist');
  prepareOutDir(outDir, out !== undefined);
  try {
    return build(name, outDir);
  } catch (error) {
    // Half an output must not be packed.
    rmSync(outDir, { recursive: true, force: true });
    throw error;
  }
}

export function isPackageDir(name: string | undefined): name is PackageDir {
  return PACKAGES.some((known) => known === name);
}

/** The workspace package's manifest as it is in the repository. */
export function sourceManifest(name: PackageDir): Manifest {
  return JSON.parse(readFileSync(join(root, name, 'package.json'), 'utf8')) as Manifest;
}

function build(name: PackageDir, outDir: string): Manifest {
  const pkgDir = join(root, name);
  const layout: Layout = {
    pkgDir, outDir, sources: new Set(sourceFiles(pkgDir)), sourceMaps: SOURCE_MAPS.has(name), assets: new Map(),
  };
  const pkg = sourceManifest(name);
  const docs = DOCS.map((doc) => [doc, [join(pkgDir, doc), join(root, doc)].find(existsSync)] as const);
  const missing = docs.filter(([, from]) => !from).map(([doc]) => doc);
  if (missing.length) throw new BuildError(`${name}: no ${missing.join(' or ')} in ${name}/ or the repository's root`);
  const program = compile(layout);
  checkDependencies(program, layout, pkg);
  for (const [to, from] of layout.assets) cpSync(from, to, { recursive: true });
  const manifest = publishedManifest(pkg, layout);
  writeFileSync(join(outDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [doc, from] of docs) if (from) cpSync(from, join(outDir, doc));
  const where = relative(process.cwd(), outDir) || '.';
  console.log(`${String(manifest.name)}: built ${where} (${layout.sources.size} modules)`);
  return manifest;
}

/** The default output is rebuilt from scratch; an explicit one must be empty, since a failed build removes it. */
function prepareOutDir(outDir: string, explicit: boolean): void {
  if (explicit && existsSync(outDir) && readdirSync(outDir).length > 0) throw new BuildError(`${outDir} is not empty`);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    if (['node_modules', 'dist', 'fixtures'].includes(entry) || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (entry.endsWith('.ts') && !entry.endsWith('.d.ts') && !entry.endsWith('.test.ts')) yield path;
  }
}

function compilerOptions(layout: Layout): ts.CompilerOptions {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  if (config.error) throw new BuildError(formatDiagnostics([config.error]));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  return {
    ...parsed.options,
    noEmit: false,
    allowImportingTsExtensions: false,
    rootDir: layout.pkgDir,
    outDir: layout.outDir,
    declaration: true,
    sourceMap: layout.sourceMaps,
    // The sources are not published: the maps carry them.
    inlineSources: layout.sourceMaps,
    noEmitOnError: true,
  };
}

function compile(layout: Layout): ts.Program {
  const program = ts.createProgram([...layout.sources], compilerOptions(layout));
  const before = ts.getPreEmitDiagnostics(program);
  if (before.length) throw new BuildError(formatDiagnostics(before));
  const result = program.emit(undefined, writeOutput(layout), undefined, false, {
    before: [moduleUrlTransformer(layout)],
    afterDeclarations: [declarationSpecifierTransformer],
  });
  if (result.diagnostics.length || result.emitSkipped) {
    throw new BuildError(formatDiagnostics(result.diagnostics) || 'emit skipped');
  }
  return program;
}

/**
 * Writes what tsc emits; a source map's `sources` are made relative to the package, naming each
 * source as if it lay beside its `.js` (tsc names it by its path from the output folder, which
 * spells out where the package was built: a release's temporary folder, the repository's path).
 */
function writeOutput(layout: Layout): ts.WriteFileCallback {
  return (fileName, text, writeByteOrderMark) => {
    const content = fileName.endsWith('.js.map') ? packageRelativeMap(layout, fileName, text) : text;
    ts.sys.writeFile(fileName, content, writeByteOrderMark);
  };
}

export function packageRelativeMap(layout: Pick<Layout, 'pkgDir' | 'outDir'>, mapFile: string, text: string): string {
  const map = JSON.parse(text) as { sources?: unknown; sourceRoot?: unknown };
  if (!Array.isArray(map.sources)) return text;
  const from = dirname(mapFile);
  map.sources = map.sources.map((source: string) => {
    const inPackage = relative(layout.pkgDir, resolve(from, source));
    return relative(from, join(layout.outDir, inPackage)).split(sep).join('/');
  });
  delete map.sourceRoot;
  return JSON.stringify(map);
}

function formatDiagnostics(diagnostics: readonly ts.Diagnostic[]): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => root,
    getNewLine: () => '\n',
  });
}

/**
 * tsc keeps `.ts` specifiers in declarations (TypeScript itself reads them, editors and other tools
 * may not): they name the `.js` files, as in the compiled code, which TypeScript maps to the `.d.ts`.
 */
const declarationSpecifierTransformer: ts.TransformerFactory<ts.SourceFile | ts.Bundle> = (context) => (root) => {
  const f = context.factory;
  const rewritten = (spec: ts.Expression): ts.StringLiteral | undefined =>
    ts.isStringLiteral(spec) && /^\.\.?\/.*(?<!\.d)\.ts$/.test(spec.text)
      ? f.createStringLiteral(spec.text.replace(/\.ts$/, '.js'))
      : undefined;
  const visit = (node: ts.Node): ts.Node => {
    if (ts.isImportDeclaration(node)) {
      const spec = rewritten(node.moduleSpecifier);
      if (spec) return f.updateImportDeclaration(node, node.modifiers, node.importClause, spec, node.attributes);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const spec = rewritten(node.moduleSpecifier);
      if (spec) {
        const { modifiers, isTypeOnly, exportClause, attributes } = node;
        return f.updateExportDeclaration(node, modifiers, isTypeOnly, exportClause, spec, attributes);
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const spec = rewritten(node.argument.literal);
      if (spec) {
        const argument = f.updateLiteralTypeNode(node.argument, spec);
        const { attributes, qualifier, typeArguments, isTypeOf } = node;
        node = f.updateImportTypeNode(node, argument, attributes, qualifier, typeArguments, isTypeOf);
      }
    }
    return ts.visitEachChild(node, visit, context);
  };
  return ts.isSourceFile(root) ? ts.visitEachChild(root, visit, context) : root;
};

/** `new URL('<relative>', import.meta.url)` in a source names a file that must exist in the output too. */
function moduleUrlTransformer(layout: Layout): ts.TransformerFactory<ts.SourceFile> {
  return (context) => (file) => {
    const visit = (node: ts.Node): ts.Node => {
      const spec = moduleUrlSpecifier(node);
      if (spec && ts.isNewExpression(node) && node.arguments) {
        const [, base] = node.arguments;
        const relocated = context.factory.createStringLiteral(relocate(spec, file.fileName, layout));
        return context.factory.updateNewExpression(node, node.expression, node.typeArguments, [relocated, base]);
      }
      return ts.visitEachChild(node, visit, context);
    };
    return ts.visitEachChild(file, visit, context);
  };
}

function moduleUrlSpecifier(node: ts.Node): string | undefined {
  if (!ts.isNewExpression(node) || !ts.isIdentifier(node.expression)) return undefined;
  if (node.expression.text !== 'URL') return undefined;
  const [spec, base] = node.arguments ?? [];
  if (!spec || !base || !ts.isStringLiteralLike(spec) || !/^\.\.?\//.test(spec.text)) return undefined;
  const isImportMetaUrl = ts.isPropertyAccessExpression(base) && ts.isMetaProperty(base.expression)
    && base.expression.keywordToken === ts.SyntaxKind.ImportKeyword && base.name.text === 'url';
  return isImportMetaUrl ? spec.text : undefined;
}

/** The specifier to use in the compiled file; records files to copy. */
function relocate(spec: string, sourceFile: string, layout: Layout): string {
  const target = resolve(dirname(sourceFile), spec);
  const where = `${relative(root, sourceFile)}: new URL('${spec}', import.meta.url)`;
  if (!existsSync(target)) throw new BuildError(`${where} names ${relative(root, target)}, which does not exist`);
  const inPackage = isInside(target, layout.pkgDir);
  if (inPackage && target.endsWith('.ts')) {
    if (!layout.sources.has(target)) throw new BuildError(`${where} names a module that is not built`);
    return spec.replace(/\.ts$/, '.js');
  }
  if (target === join(layout.pkgDir, 'package.json')) return spec; // written by this build
  if (!isInside(target, root)) throw new BuildError(`${where} names a file outside the repository`);
  const copy = join(layout.outDir, relative(inPackage ? layout.pkgDir : root, target));
  layout.assets.set(copy, target);
  const compiled = join(layout.outDir, relative(layout.pkgDir, dirname(sourceFile)));
  const path = relative(compiled, copy).split(sep).join('/');
  return `${path.startsWith('.') ? '' : './'}${path}${spec.endsWith('/') ? '/' : ''}`;
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
}

/** Workspace hoisting hides a missing dependency; an installed package would not find it. */
function checkDependencies(program: ts.Program, layout: Layout, pkg: Manifest): void {
  const declared = new Set([
    String(pkg.name),
    ...['dependencies', 'peerDependencies', 'optionalDependencies']
      .flatMap((field) => Object.keys(asRecord(pkg[field]))),
  ]);
  const missing: string[] = [];
  for (const file of program.getSourceFiles()) {
    if (!layout.sources.has(resolve(file.fileName))) continue;
    for (const { fileName: spec } of ts.preProcessFile(file.text, true, true).importedFiles) {
      if (spec.startsWith('.') || isBuiltin(spec)) continue;
      const name = spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/');
      if (!declared.has(name)) missing.push(`${relative(root, file.fileName)}: imports ${name}, not in dependencies`);
    }
  }
  if (missing.length) throw new BuildError(missing.join('\n'));
}

function publishedManifest(pkg: Manifest, layout: Layout): Manifest {
  const exports = Object.fromEntries(Object.entries(asRecord(pkg.exports)).map(([subpath, target]) => {
    const js = compiledPath(target, `exports["${subpath}"]`, layout);
    return [subpath, { types: js.replace(/\.js$/, '.d.ts'), default: js }];
  }));
  const bin = Object.fromEntries(Object.entries(binField(pkg)).map(([command, target]) => {
    const field = `bin.${command}`;
    const written = typeof target === 'string' && target.endsWith('.js');
    const js = written ? copiedEntry(target, field, layout) : compiledPath(target, field, layout);
    makeExecutable(join(layout.outDir, js));
    return [command, js];
  }));
  const entry = asRecord(exports['.']);
  const assets = [...layout.assets.keys()].map((path) => relative(layout.outDir, path).split(sep).join('/'));
  const { scripts: _scripts, devDependencies: _devDependencies, ...kept } = pkg;
  return {
    ...kept,
    ...(entry.default ? { main: entry.default, types: entry.types } : {}),
    exports,
    ...(Object.keys(bin).length ? { bin } : {}),
    ...(kept.dependencies ? { dependencies: pinnedWorkspaceDependencies(asRecord(kept.dependencies)) } : {}),
    files: ['**/*.js', ...(layout.sourceMaps ? ['**/*.js.map'] : []), '**/*.d.ts', ...assets],
  };
}

/** A dependency on another package of this workspace: its exact version in the repository. */
function pinnedWorkspaceDependencies(dependencies: Record<string, unknown>): Record<string, unknown> {
  const versions = new Map(PACKAGES.map((dir) => {
    const { name, version } = sourceManifest(dir);
    return [String(name), String(version)];
  }));
  return Object.fromEntries(Object.entries(dependencies).map(([name, range]) => [name, versions.get(name) ?? range]));
}

function binField(pkg: Manifest): Record<string, unknown> {
  return typeof pkg.bin === 'string' ? { [String(pkg.name)]: pkg.bin } : asRecord(pkg.bin);
}

/** `./x.ts` in the package → `./x.js` in the output, which the build must have written. */
function compiledPath(target: unknown, field: string, layout: Layout): string {
  if (typeof target !== 'string' || !/^\.\/.*\.ts$/.test(target)) {
    throw new BuildError(`package.json ${field}: expected "./….ts", got ${JSON.stringify(target)}`);
  }
  const js = target.replace(/\.ts$/, '.js');
  if (!existsSync(join(layout.outDir, js))) throw new BuildError(`package.json ${field}: ${target} was not compiled`);
  return js;
}

/**
 * A command written in JavaScript already (an entry that checks the Node before it loads the compiled
 * code): its one source (scripts/command-entry.js) is published, its relative `.ts` imports pointed
 * at the `.js` the build wrote; the package's own copy must be the same, or the checkout runs another.
 */
function copiedEntry(target: string, field: string, layout: Layout): string {
  const from = join(layout.pkgDir, target);
  if (!/^\.\/[^.].*\.js$/.test(target) || !existsSync(from)) {
    throw new BuildError(`package.json ${field}: expected "./….js" in the package, got ${JSON.stringify(target)}`);
  }
  const source = readFileSync(join(root, ENTRY_SOURCE), 'utf8');
  if (readFileSync(from, 'utf8') !== source) {
    throw new BuildError(`package.json ${field}: ${target} differs from its one source, ${ENTRY_SOURCE}; ` +
      'run node scripts/command-entries.ts');
  }
  const to = join(layout.outDir, target);
  const specifier = /(['"])(\.\.?\/[^'"]*)\.ts\1/g;
  const text = source.replace(specifier, (_whole, quote: string, path: string) => {
    if (!existsSync(resolve(dirname(to), `${path}.js`))) throw new BuildError(`${target}: ${path}.ts was not compiled`);
    return `${quote}${path}.js${quote}`;
  });
  mkdirSync(dirname(to), { recursive: true });
  writeFileSync(to, text);
  return target;
}

function makeExecutable(file: string): void {
  if (!readFileSync(file, 'utf8').startsWith(`${SHEBANG}\n`)) {
    throw new BuildError(`${file}: a command must start with "${SHEBANG}"`);
  }
  chmodSync(file, 0o755);
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

if (import.meta.main) {
  try {
    main();
  } catch (error) {
    if (!(error instanceof BuildError)) throw error;
    console.error(`build-package: ${error.message.trimEnd()}`);
    process.exitCode = 1;
  }
}
