import { runCli } from '../../src/cli/program.js';

/** Runs the `toolwright` CLI in-process with `argv`, capturing what it writes: its exit code, stdout and stderr. */
export async function runCliCaptured(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}
