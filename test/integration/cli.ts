/** Runs one of the project's command-line scripts as a child process, as a user would. */
import { spawn } from 'node:child_process';

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `script` (an absolute path) with `args`, the environment plus `env`; resolves when it exits. */
export function runScript(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
