/**
 * Client-go credential plugins (`users[].user.exec` in a kubeconfig): run a command, read an
 * `ExecCredential` from its stdout. Run asynchronously and never more than once at a time per
 * source (the cache in credentials.ts de-duplicates), so that an expiring token does not spawn
 * one process per waiting request.
 */
import { spawn } from 'node:child_process';

export interface ExecConfig {
  apiVersion?: string;
  command: string;
  args?: string[];
  env?: { name: string; value: string }[] | null;
  provideClusterInfo?: boolean;
  /** What to tell the user when the command is not installed (as kubectl shows it). */
  installHint?: string;
}

export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

export interface ExecClusterInfo {
  server: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
}

/** How long a plugin may run: login prompts aside, they answer in well under a second. */
const PLUGIN_TIMEOUT_MS = 60_000;

export async function runExecPlugin(exec: ExecConfig, cluster?: ExecClusterInfo): Promise<ExecCredentialStatus> {
  const apiVersion = exec.apiVersion ?? 'client.authentication.k8s.io/v1';
  const info = {
    apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...(exec.provideClusterInfo && cluster ? { cluster } : {}) },
  };
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const { name, value } of exec.env ?? []) env[name] = value;

  const child = spawn(
    exec.command,
    exec.args ?? [],
    { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: PLUGIN_TIMEOUT_MS },
  );
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const { code, signal } = await new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null
  }>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') return reject(error);
      const hint = exec.installHint?.trim();
      reject(
        new Error(
          `credential plugin ${exec.command} is not installed: not found on the PATH${hint ? `. ${hint}` : ''}`,
          { cause: error },
        )
      );
    });
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const errText = Buffer.concat(stderr).toString('utf8').trim();
  if (code !== 0) {
    const ended = code !== null ? `exited with ${code}` : signal === 'SIGTERM'
      ? `did not answer within ${PLUGIN_TIMEOUT_MS / 1000} s` : `was killed by ${signal}`;
    throw new Error(`credential plugin ${exec.command} ${ended}${errText ? `: ${errText}` : ''}`);
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(stdout).toString('utf8'));
  } catch {
    // Without the parser's message: it quotes the output, which holds the credentials.
    throw new Error(`credential plugin ${exec.command} printed no valid ExecCredential JSON`);
  }
  const status = (parsed as { status?: ExecCredentialStatus } | null)?.status;
  if (!status || (!status.token && !status.clientCertificateData)) {
    throw new Error(`credential plugin ${exec.command} returned neither a token nor a client certificate`);
  }
  const fields = ['token', 'clientCertificateData', 'clientKeyData', 'expirationTimestamp'] as const;
  const wrong = fields.find(
    (field) => status[field] !== undefined && status[field] !== null && typeof status[field] !== 'string'
  );
  if (wrong)
    throw new Error(
      `credential plugin ${exec.command} returned an ExecCredential whose status.${wrong} is not a string`
    );
  return status;
}
