// `pnpm build` for the client, step one: its types from the API's OpenAPI document (then `tsc`).
import { updateApiTypes } from './api-types.js';

const types = await updateApiTypes(process.env.CI === 'true');
console.log(`client api types: ${types} (src/openapi.ts)`);
