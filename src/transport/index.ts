export { createClient } from './client.js';
export { DEFAULT_SIGNATURE_HEADER, IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, RETRY_AFTER_HEADER } from './headers.js';
export type {
  Client,
  ClientOptions,
  HttpMethod,
  OnBeforeSign,
  QueryValue,
  RequestLogEntry,
  RequestOptions,
  SignRequest,
  SignedRequestOptions,
  SignerLike,
} from './types.js';
