export { defineResultContract } from './defineResultContract.js';
export type { ResultContract, ResultContractDefinition, ResultContractRecord } from './defineResultContract.js';
export { teamResultContract } from './teamResultContract.js';
export { ResultContractError, ResultContractErrorCodes, isResultContractError } from './resultContractError.js';
export type { ResultContractErrorCode, ResultContractIssue } from './resultContractError.js';
