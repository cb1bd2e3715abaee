import type * as Core from '../index.js';

type Sdk = Pick<typeof Core, 'getState' | 'subscribe' | 'unsubscribe'>;

/** Read at each call: the part's script may load before /sdk/web-sdk.js has run. */
function sdk(): Sdk {
  const global = (globalThis as { WebPush?: Partial<Sdk> }).WebPush;
  if (typeof global?.subscribe !== 'function') throw new Error('load /sdk/web-sdk.js before the SDK’s UI parts');
  return global as Sdk;
}

export const getState: Sdk['getState'] = (options) => sdk().getState(options);
export const subscribe: Sdk['subscribe'] = (options) => sdk().subscribe(options);
export const unsubscribe: Sdk['unsubscribe'] = (options) => sdk().unsubscribe(options);
