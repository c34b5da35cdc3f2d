/**
 * Every ```ts block of docs/*.md and README.md type-checks against the repository, as a user's
 * module would: `kopf` and `kopf/testing` resolve through the workspace's node_modules/kopf, and
 * the module kopf-gen would write is the stand-in beside this file (generated/index.ts), importable
 * as `./generated/index.ts` (a file in `src/`) and as `../generated/index.ts` (a file in
 * `src/handlers/`, where kopf-gen puts handler stubs).
 *
 * The blocks are served to one TypeScript program as in-memory modules in a folder under this one
 * (snippets/, which does not exist on disk), so module resolution is exactly the repository's and
 * nothing is written. A block whose first line is `// not checked: <reason>` is skipped. A
 * deliberately wrong block is checked in the same program, to prove that errors are caught and
 * located.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const HERE = import.meta.dirname;
const SNIPPETS = join(HERE, 'snippets');

export interface Block {
  /** The Markdown file, relative to the repository root. */
  file: string;
  /** 1-based among the file's ```ts blocks. */
  index: number;
  /** The line of the Markdown file where the code starts (the line after the fence). */
  line: number;
  code: string;
  skipped: boolean;
}

/** The ```ts blocks of a Markdown text, with where each starts. */
export function extractBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  let open: { line: number; code: string[] } | null = null;
  let fence = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (open === null) {
      const start = /^(\s*)(`{3,})ts\s*$/.exec(line);
      if (start) { open = { line: i + 2, code: [] }; fence = start[2]; }
    } else if (line.trim() === fence) {
      const code = open.code.join('\n');
      blocks.push(
        { file, index: blocks.length + 1, line: open.line, code, skipped: /^\s*\/\/ not checked:/.test(code) }
      );
      open = null;
    } else {
      open.code.push(line);
    }
  }
  assert.equal(open, null, `${file}: a \`\`\`ts block starting at line ${open ? open.line - 1 : 0} is not closed`);
  return blocks;
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => join('docs', f));
  return [...docs, 'README.md'];
}

interface Problem { block: Block; line: number; message: string }

/** Type-checks the blocks in one program; returns every error, located in the Markdown files. */
function check(blocks: readonly Block[]): Problem[] {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  options.noEmit = true;
  options.noUnusedLocals = false; // snippets name things to show them, not always to use them
  const virtual = new Map<string, Block>();
  blocks.forEach((block) => {
    const name = `${block.file.replace(/[^A-Za-z0-9]+/g, '_')}__block${block.index}.ts`;
    virtual.set(join(SNIPPETS, name), block);
  });
  // Each block is its own module, whether or not it imports anything.
  const texts = new Map<string, string>([...virtual].map(([name, block]) => [name, `${block.code}\nexport {};\n`]));
  texts.set(join(SNIPPETS, 'generated', 'index.ts'), "export * from '../../generated/index.ts';\n");
  // docs/versions.md imports an older version's module too.
  const olderVersion = "export * from '../../../generated/example.com/v1alpha1.ts';\n";
  texts.set(join(SNIPPETS, 'generated', 'example.com', 'v1alpha1.ts'), olderVersion);
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => texts.has(name) || fileExists.call(host, name);
  const { directoryExists } = host;
  host.directoryExists = (name) => name === SNIPPETS || name.startsWith(`${SNIPPETS}/`) || (
    directoryExists?.call(host, name) ?? true
  );
  host.readFile = (name) => texts.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, version, onError, create) => {
    const text = texts.get(name);
    return text === undefined ? getSourceFile.call(host, name, version, onError, create) : ts.createSourceFile(
      name,
      text,
      version,
      true,
    );
  };
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const problems: Problem[] = [];
  for (const diagnostic of program.getOptionsDiagnostics()) {
    problems.push(
      {
        block: blocks[0],
        line: 0,
        message: `compiler options: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
      }
    );
  }
  for (const [name, block] of virtual) {
    const source = program.getSourceFile(name)!;
    for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const offset = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line;
      problems.push(
        { block, line: block.line + offset, message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n') }
      );
    }
  }
  return problems;
}

const BROKEN: Block = {
  file: 'test/unit/docs/(broken example)', index: 1, line: 10, skipped: false,
  code: "import { on } from 'kopf';\n\non.create('widgets', async function create_fn({ spek }) { return spek; });",
};

test('every ```ts block in docs/*.md and README.md type-checks', () => {
  const blocks = markdownFiles().flatMap((file) => extractBlocks(file, readFileSync(join(ROOT, file), 'utf8')));
  const checked = blocks.filter((b) => !b.skipped);
  assert.ok(checked.length >= 20, `only ${checked.length} checked blocks were found: is the extraction broken?`);

  const problems = check([...checked, BROKEN]);

  // The broken block proves that errors are caught, and where they are reported.
  const planted = problems.filter((p) => p.block === BROKEN);
  assert.ok(
    planted.some((p) => p.line === 12 && /spek/.test(p.message)),
    `the broken block was not caught: ${JSON.stringify(planted)}`,
  );

  const real = problems.filter((p) => p.block !== BROKEN);
  const report = real.map((p) => `${p.block.file}:${p.line} (block ${p.block.index}): ${p.message}`);
  assert.deepEqual(report, [], `code blocks that do not type-check:\n  ${report.join('\n  ')}`);
});

test('skipped blocks say why, and stay rare', () => {
  const blocks = markdownFiles().flatMap((file) => extractBlocks(file, readFileSync(join(ROOT, file), 'utf8')));
  const skipped = blocks.filter((b) => b.skipped);
  for (const block of skipped) {
    assert.match(
      block.code.split('\n')[0],
      /^\s*\/\/ not checked: \S/,
      `${block.file}:${block.line}: give a reason after "not checked:"`,
    );
  }
  assert.ok(
    skipped.length * 10 <= blocks.length,
    `${skipped.length} of ${blocks.length} blocks are not checked: ` +
      `${skipped.map((b) => `${b.file}:${b.line}`).join(', ')}`,
  );
});

test('blocks are found with their lines, and unclosed fences are reported', () => {
  const text = [
    '# T',
    '',
    '```ts',
    'const a = 1;',
    '```',
    '',
    '```js',
    'x',
    '```',
    '```ts',
    '// not checked: partial',
    'x',
    '```',
  ].join('\n');
  const blocks = extractBlocks('t.md', text);
  assert.deepEqual(blocks.map((b) => [b.index, b.line, b.skipped]), [[1, 4, false], [2, 11, true]]);
  assert.throws(() => extractBlocks('u.md', '```ts\nconst a = 1;\n'), /not closed/);
  assert.equal(relative(ROOT, HERE), join('test', 'unit', 'docs'));
});
