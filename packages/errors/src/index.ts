export { AppError, type AppErrorOptions, type ErrorBody, errorBody, isAppError } from './app-error.js';
export { type ErrorCode, type ErrorDefinition, errorCatalogue } from './catalogue.js';
