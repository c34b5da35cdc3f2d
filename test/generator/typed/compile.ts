/**
 * Type-checking single files with TypeScript 5.9 in this process, under the repository's compiler
 * options. Source files are parsed once and shared between programs, so each file costs only
 * its own checking.
 */
import ts from 'typescript';

const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2023,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  allowImportingTsExtensions: true,
  verbatimModuleSyntax: true,
  erasableSyntaxOnly: true,
  skipLibCheck: true,
  types: ['node'],
};

export interface Finding {
  readonly file: string;
  readonly code: number;
  /** The message with its chain, flattened to one text. */
  readonly message: string;
}

export function typeChecker(): (rootFile: string) => Finding[] {
  const host = ts.createCompilerHost(OPTIONS);
  const cache = new Map<string, ts.SourceFile | undefined>();
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!cache.has(fileName)) cache.set(fileName, getSourceFile(fileName, languageVersion, onError, shouldCreate));
    return cache.get(fileName);
  };
  let previous: ts.Program | undefined;
  return (rootFile) => {
    const program = ts.createProgram([rootFile], OPTIONS, host, previous);
    previous = program;
    return ts.getPreEmitDiagnostics(program).map((d) => ({
      file: d.file?.fileName ?? '',
      code: d.code,
      message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
  };
}
