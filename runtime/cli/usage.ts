/** A command's wrong use: what is wrong and where to read how to use it; exit code 2. */
export function usageError(command: string, message: string): number {
  process.stderr.write(`kopf ${command}: ${message}\nSee \`kopf ${command} --help\`.\n`);
  return 2;
}

/**
 * What `parseArgs` refused, said for a command line. Its message for an unknown option goes on about
 * positional arguments after `--`, which a misspelt option never is: only the option is kept.
 */
export function refusedArgsMessage(error: Error): string {
  const unknown = /^(Unknown option '[^']*')\. To specify a positional argument/.exec(error.message);
  return unknown ? `${unknown[1]}.` : error.message;
}
