/** Types of scripts/dev-log.mjs (`pnpm dev`'s readable logs), for the tests that import it. */
export declare function isViteAsset(url: unknown): boolean;
export declare function linksIn(text: string): string[];
export declare function createDevLogFormatter(options?: {
  colour?: boolean;
  readFile?: (path: string) => string;
}): (line: string) => string[];
