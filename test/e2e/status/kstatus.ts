/**
 * Flux's own computation of an object's health (kstatus: `status.Compute` of
 * sigs.k8s.io/cli-utils), as a small program built from the Go module proxy into kopf's cache
 * outside the repository, the way the control plane's binaries are built (`controlplane/building.ts`):
 * a throw-away module in a work folder, a lock against parallel builds, the binary renamed into
 * place. It reads an object as JSON on stdin and prints `{ "status": …, "message": … }`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheRoot } from '../../../runtime/testing/controlplane/cache.ts';
import { acquireLock } from '../../../runtime/testing/controlplane/locks.ts';
import { onPath } from '../../../runtime/testing/executables.ts';

const CLI_UTILS = 'sigs.k8s.io/cli-utils@v0.37.2';

const PROGRAM = `package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

func main() {
	input, err := io.ReadAll(os.Stdin)
	object := &unstructured.Unstructured{}
	if err == nil {
		err = object.UnmarshalJSON(input)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	result, err := status.Compute(object)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"status": result.Status.String(), "message": result.Message})
}
`;

/** What kstatus says of an object: `InProgress`, `Current`, `Failed`, `Terminating`, … and why. */
export interface KstatusResult {
  status: string;
  message: string;
}

export type Kstatus = (object: unknown) => Promise<KstatusResult>;

const run = promisify(execFile);

/** The computation, built if it is not in the cache yet; or why it cannot be (no Go here). */
export async function kstatus(): Promise<{ compute: Kstatus } | { unavailable: string }> {
  const folder = join(cacheRoot(), 'kstatus', CLI_UTILS.replace(/[/@]/g, '_'));
  const binary = join(folder, 'kstatus');
  if (!existsSync(binary)) {
    const go = onPath('go');
    if (!go) return { unavailable: `Go is not installed: Flux's kstatus (${CLI_UTILS}) is built with it` };
    await build(go, folder, binary);
  }
  return { compute: (object) => compute(binary, object) };
}

async function build(go: string, folder: string, binary: string): Promise<void> {
  const work = join(folder, 'work');
  mkdirSync(work, { recursive: true });
  const lock = await acquireLock(join(folder, 'build.lock'));
  try {
    if (existsSync(binary)) return; // built by another process meanwhile
    writeFileSync(join(work, 'go.mod'), 'module example.invalid/kopf-kstatus\n\ngo 1.24\n');
    rmSync(join(work, 'go.sum'), { force: true });
    writeFileSync(join(work, 'main.go'), PROGRAM);
    const env = { ...process.env, GOFLAGS: '-mod=mod', GOWORK: 'off', CGO_ENABLED: '0' };
    const options = { cwd: work, env, maxBuffer: 16 * 1024 * 1024 };
    await run(go, ['get', CLI_UTILS], options);
    const temporary = join(folder, `.kstatus.building-${process.pid}`);
    await run(go, ['build', '-trimpath', '-ldflags=-s -w', '-o', temporary, '.'], options);
    renameSync(temporary, binary);
  } finally {
    lock.release();
  }
}

function compute(binary: string, object: unknown): Promise<KstatusResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(binary, [], (error, stdout, stderr) => {
      if (error) reject(new Error(`kstatus failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as KstatusResult);
    });
    child.stdin!.end(JSON.stringify(object));
  });
}
