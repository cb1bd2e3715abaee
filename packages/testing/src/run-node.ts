import { type SpawnOptions, spawn } from 'node:child_process';

export interface NodeRun {
  /** The exit code; null when a signal ended the process. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs this Node (`process.execPath`) with `args` to its end and answers its exit code and both outputs. */
export function runNode(args: string[], options: Omit<SpawnOptions, 'stdio'> = {}): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
