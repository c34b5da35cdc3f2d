/**
 * Documents made to exhaust kopf-gen: an alias bomb, a document or a file larger than any CRD,
 * a device for a file, nesting deeper than any schema. Each is refused with an error that names
 * the file, before the work it would cost; nothing is written.
 */
import assert from 'node:assert/strict';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { formatDiagnostic, InputError } from '../../../generator/diagnostics/diagnostic.ts';
import { generate } from '../../../generator/index.ts';
import { extractCrds } from '../../../generator/input/documents.ts';
import { MAX_FILE_BYTES } from '../../../generator/input/files.ts';
import { MAX_ALIASED_VALUES, MAX_DEPTH, MAX_DOCUMENT_BYTES, parseYamlStream } from '../../../generator/input/yaml.ts';
import { crdYaml } from '../support/sources.ts';
import { tempProject } from '../support/project.ts';

/** Nine levels of nine aliases each: 9^9 (387 million) values from a file of 500 bytes. */
const BOMB = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  .concat(['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((name, i) => {
    const previous = String.fromCharCode('a'.charCodeAt(0) + i);
    return `${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`;
  }))
  .join('\n');

async function refusedByGenerate(files: { [name: string]: string }, inputs = ['crds']): Promise<InputError> {
  const project = tempProject();
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(project.crds, name), text);
    const before = project.listing();
    const error = await generate({ inputs, outDir: 'src/generated', stubsDir: 'src/handlers', cwd: project.root }).then(
      () => assert.fail('accepted'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof InputError, String(error));
    assert.deepEqual(project.listing(), before, 'nothing written');
    return error;
  } finally {
    project.dispose();
  }
}

test('an alias bomb is refused as excessive aliasing, at the alias that expands', async () => {
  const stream = parseYamlStream(BOMB, 'crds/bomb.yaml');
  assert.equal(stream.errors.length, 1);
  const [error] = stream.errors;
  assert.match(error!.message, new RegExp(`excessive aliasing: aliases add over ${MAX_ALIASED_VALUES} values`));
  assert.match(
    formatDiagnostic(error!),
    /^crds\/bomb\.yaml:\d+:\d+: error: document 1, [a-i]\[\d+\]: excessive aliasing/,
  );
  const refused = await refusedByGenerate({ 'bomb.yaml': `${crdYaml()}---\n${BOMB}\n` });
  assert.match(refused.message, /^crds\/bomb\.yaml:\d+:\d+: error: document 2, .*excessive aliasing/m);
});

test('aliases up to the limit are read; in a larger document, up to its own size', () => {
  const block = `&block [${Array(999).fill('1').join(', ')}]`;
  const references = (count: number) => `[${Array(count).fill('*block').join(', ')}]`;
  // Each reference adds the 1000 values of the block: exactly the limit, then one value more.
  const atLimit = `a: ${block}\nb: ${references(MAX_ALIASED_VALUES / 1000)}\n`;
  assert.deepEqual(parseYamlStream(atLimit, 'a.yaml').errors, []);
  const over = `a: ${block}\nb: ${references(MAX_ALIASED_VALUES / 1000)}\nc: &one 1\nd: *one\n`;
  assert.match(parseYamlStream(over, 'a.yaml').errors[0]!.message, /excessive aliasing/);
  // A document with more values of its own may have as many more through aliases.
  const own = `own:\n${'- 1\n'.repeat(MAX_ALIASED_VALUES * 1.1)}`;
  const larger = `${own}a: ${block}\nb: ${references(MAX_ALIASED_VALUES * 1.05 / 1000)}\n`;
  assert.deepEqual(parseYamlStream(larger, 'a.yaml').errors, []);
});

test('a document larger than any object the API server takes is refused before it is parsed', async () => {
  const filler = `# ${'x'.repeat(1022)}\n`.repeat(Math.ceil(MAX_DOCUMENT_BYTES / 1024) + 1);
  const text = `${crdYaml()}---\n${filler}${crdYaml({ kind: 'Other' })}`;
  const stream = parseYamlStream(text, 'crds/huge.yaml');
  assert.equal(stream.documents.length, 0, 'not parsed');
  assert.equal(stream.errors.length, 1);
  const line = crdYaml().split('\n').length;
  assert.equal(formatDiagnostic(stream.errors[0]!),
    `crds/huge.yaml:${line}:1: error: the document starting here is 8.0 MiB; kopf-gen reads documents of up to 8 MiB `
    + '(the API server takes objects of up to 3 MiB of JSON)');
  await refusedByGenerate({ 'huge.yaml': text });
});

test('a file larger than the limit is refused before it is read', async () => {
  const project = tempProject();
  try {
    writeFileSync(join(project.crds, 'a.yaml'), crdYaml());
    // Sparse: a 100 MiB file that takes no room, and would take a minute and gigabytes to parse.
    writeFileSync(join(project.crds, 'huge.yaml'), '');
    truncateSync(join(project.crds, 'huge.yaml'), 100 * 1024 * 1024);
    const before = project.listing();
    const options = { inputs: ['crds'], outDir: 'src/generated', stubsDir: 'src/handlers', cwd: project.root };
    const error = await generate(options).then(() => assert.fail('accepted'), (e: unknown) => e);
    assert.ok(error instanceof InputError);
    const expected = 'crds/huge.yaml: error: the file is 100 MiB; '
      + `kopf-gen reads files of up to ${MAX_FILE_BYTES / 1024 / 1024} MiB (split it, or name a folder of files)`;
    assert.equal(error.message, expected);
    assert.deepEqual(project.listing(), before);
  } finally {
    project.dispose();
  }
});

test('a device given as a file is refused, not read forever', async () => {
  const error = await refusedByGenerate({}, ['/dev/zero']);
  assert.equal(error.message, '/dev/zero: error: not a regular file');
});

test('nesting deeper than any schema is refused with its place, not a crash', async () => {
  const flow = `a: ${'['.repeat(MAX_DEPTH + 50)}${']'.repeat(MAX_DEPTH + 50)}\n`;
  const [tooDeep] = parseYamlStream(flow, 'deep.yaml').errors;
  assert.match(tooDeep!.message, new RegExp(`nested deeper than ${MAX_DEPTH} levels`));
  for (const depth of [5_000, 50_000]) {
    const errors = parseYamlStream(`${'['.repeat(depth)}${']'.repeat(depth)}`, 'deep.yaml').errors;
    assert.ok(errors.length > 0);
    for (const e of errors) assert.match(e.message, /nested (too deeply to read|deeper than)/);
  }
  let block = 'a:\n';
  for (let i = 1; i < 3000; i++) block += `${' '.repeat(i)}a:\n`;
  const refused = await refusedByGenerate({ 'deep.yaml': block });
  assert.match(refused.message, /^crds\/deep\.yaml:\d+:\d+: error: document 1: nested/m);
});

test('values from the input are shown escaped in messages: no forged line, no terminal control', () => {
  const hostile = 'Evil\u001b[2J\ncrds/ok.yaml:1:1: error: forged\u202e';
  const stream = parseYamlStream(`kind: ${JSON.stringify(hostile)}\n`, 'crds/evil.yaml');
  const notes = extractCrds('crds/evil.yaml', stream.documents).diagnostics;
  assert.equal(notes.length, 1);
  for (const d of notes) {
    const line = formatDiagnostic(d);
    assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u202e]/, line);
    assert.match(line, /Evil\\u001b\[2J\\u000acrds\/ok\.yaml/);
  }
});
