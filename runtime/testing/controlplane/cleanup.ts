/**
 * Control planes die with the process that started them: on a normal exit (synchronously: nothing
 * asynchronous runs in an 'exit' listener), and on SIGINT/SIGTERM/SIGHUP (gracefully, then the
 * signal's default action, unless the program listens to that signal itself). SIGKILL is covered by
 * each process's watchdog (processes.ts). The hooks are installed only while a control plane lives.
 */

export interface Stoppable {
  stop(): Promise<void>;
  /** Ends everything at once and removes state, synchronously. */
  killNow(): void;
}

const live = new Set<Stoppable>();
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function onExit(): void {
  for (const item of live) item.killNow();
  live.clear();
}

let signalled = false;

function onSignal(signal: NodeJS.Signals): void {
  // Only when nobody else listens does the signal's default action (ending the process) apply;
  // a program that handles the signal itself decides for itself, after we stopped.
  const alone = process.listenerCount(signal) === 1;
  if (signalled) {
    // A second Ctrl-C: the user does not want to wait for a graceful stop.
    onExit();
    uninstall();
    if (alone) process.kill(process.pid, signal);
    return;
  }
  signalled = true;
  const stopping = [...live].map((item) => item.stop().catch(() => {}));
  void Promise.all(stopping).then(() => {
    signalled = false;
    uninstall();
    if (alone) process.kill(process.pid, signal);
  });
}

function install(): void {
  process.on('exit', onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  process.off('exit', onExit);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

export function register(item: Stoppable): void {
  if (live.size === 0) install();
  live.add(item);
}

export function unregister(item: Stoppable): void {
  live.delete(item);
  if (live.size === 0) uninstall();
}
