/** Types of dev-log.mjs (`pnpm dev`'s readable logs), for scripts/processes.mjs and the tests. */
export declare function isViteAsset(url: unknown): boolean;
export declare function linksIn(text: string): string[];
export declare function createDevLogFormatter(options?: {
  colour?: boolean;
  readFile?: (path: string) => string;
}): (line: string) => string[];
