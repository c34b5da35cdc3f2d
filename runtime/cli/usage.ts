/** A command's wrong use: what is wrong and where to read how to use it; exit code 2. */
export function usageError(command: string, message: string): number {
  process.stderr.write(`kopf ${command}: ${message}\nSee \`kopf ${command} --help\`.\n`);
  return 2;
}
