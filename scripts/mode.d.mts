/** Types of mode.mjs, for scripts/admin.ts. */
type Env = Record<string, string | undefined>;
export declare class ModeError extends Error {}
export declare function chooseMode(env: Env): 'embedded' | 'external' | 'postgres-only';
export declare function embeddedDataRoot(env: Env): string;
export declare function runningEmbedded(env: Env): Env | null;
export declare function describeMode(mode: 'external' | 'postgres-only', env: Env): string;
export declare function startEmbedded(
  env: Env,
  log?: (line: string) => void,
): Promise<{ env: Env; stop(): Promise<void> }>;
