// auth-github.test.ts with the used OAuth states and the callback's counter in the API's own process (COORDINATION=process).
process.env.TEST_COORDINATION = 'process';
await import('./auth-github.test.js');
