/** Types of env-file.mjs, for scripts/admin.ts. */
export declare function readEnvFile(path: string): Record<string, string>;
export declare function ensureDevSecrets(path: string): boolean;
export declare function launcherEnv(
  path: string,
  processEnv?: Record<string, string | undefined>,
): { env: Record<string, string | undefined>; apiPort: number };
