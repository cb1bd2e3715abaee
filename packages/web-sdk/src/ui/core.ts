// The SDK calls the UI parts make. The script-tag builds swap this file for `core-global.ts`, so a
// part loaded with a <script> uses the `WebPush` the page already has instead of a second copy.
export { getState, subscribe, unsubscribe } from '../index.js';
