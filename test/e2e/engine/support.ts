/**
 * What the engine's end-to-end tests share besides their control plane (`useCluster`): embedded
 * operators whose logs are captured for awaiting.
 */
import type { TestCluster } from '../use-cluster.ts';
import type { OperatorRegistry } from '../../../runtime/registry/registry.ts';
import { operator, type OperatorOptions } from '../../../runtime/operator/operator.ts';
import { LogConfig, captureLogs, type LogRecord } from '../../../runtime/logging/index.ts';
import { defaultSettings } from '../../../runtime/config/defaults.ts';

/** An embedded operator with events off and every log record captured. */
export function startOperator(
  cluster: TestCluster,
  registry: OperatorRegistry,
  options: Partial<OperatorOptions> = {},
) {
  const capture = captureLogs();
  const op = operator({
    registry, kubeconfig: cluster.cp.kubeconfig, namespaces: ['default'],
    settings: defaultSettings({ posting: { enabled: false } }),
    logs: new LogConfig({ verbosity: 'debug', sinks: [capture.sink] }),
    ...options,
  });
  return { op, capture };
}

type Running = ReturnType<typeof startOperator>;

/**
 * Runs `body` once an embedded operator (as `startOperator` makes it, with `options`) is ready,
 * and stops the operator after it, whether the body passed or failed, and also if the operator
 * never got ready.
 */
export async function withOperator<R>(
  cluster: TestCluster,
  registry: OperatorRegistry,
  ...args: [body: (running: Running) => Promise<R>] | [
    options: Partial<OperatorOptions>,
    body: (running: Running) => Promise<R>,
  ]
): Promise<R> {
  const [options, body] = args.length === 1 ? [{}, args[0]] : args;
  const running = startOperator(cluster, registry, options);
  try {
    await running.op.ready;
    return await body(running);
  } finally {
    await running.op.stop();
  }
}

/**
 * Matches a record the operator logged about the object named `name`: the whole message when a
 * string is given, a search when a RegExp is.
 */
export function about(name: string, message: string | RegExp): (record: LogRecord) => boolean {
  const says = typeof message === 'string' ? (m: string) => m === message : (m: string) => message.test(m);
  return (record) => record.ref?.name === name && says(record.message);
}
