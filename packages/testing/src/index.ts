export { testConfig } from './config.js';
export {
  adminDatabaseUrl,
  createIsolatedResources,
  databaseUrlFor,
  deleteRedisKeys,
  type IsolatedResources,
  testRedisUrl,
} from './isolation.js';
