export { AppError, type AppErrorOptions, type ErrorBody, errorBody, isAppError } from './app-error.js';
export { type ErrorCode, type ErrorDefinition, type ErrorDetail, errorCatalogue, errorDetails } from './catalogue.js';
