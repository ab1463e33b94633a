// What a failed request's `error` says to the gateway ({message, type, status}, as the newer
// reference worker sends it). The status decides who is blamed: the gateway relays a 4xx as the
// buyer's fault, so only failures the buyer's own request caused may carry one.
import { errorMessage } from '../../../shared/errors.ts';
import type { ResponseError } from './frames.ts';
import { ServeHttpError } from './serve-http.ts';

/** The buyer's request cannot be turned into a prompt (template refused it, wrong shapes). */
export class BadRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadRequest';
  }
}

/**
 * sglang answers 500 for a payload it could not decode although the bytes are the buyer's (the
 * same request fails on every miner). Only messages that can come from the request body are
 * re-labelled, so a real engine fault stays a 5xx.
 */
const CLIENT_PAYLOAD_500 = [
  'while loading image data',
  'while loading data imagedata(',
  'while loading data audiodata(',
  'while loading data videodata(',
  'broken data stream when reading image file',
  'cannot identify image file',
];

export function clientFacingStatus(status: number, detail: string): number {
  const d = detail.toLowerCase();
  return status === 500 && CLIENT_PAYLOAD_500.some((p) => d.includes(p)) ? 400 : status;
}

export function responseErrorOf(e: unknown): ResponseError {
  const message = errorMessage(e);
  if (e instanceof ServeHttpError) return { message, type: 'ServeError', status: clientFacingStatus(e.status, message) };
  if (e instanceof BadRequestError) return { message, type: 'BadRequest', status: 400 };
  const type = e instanceof Error && e.name && e.name !== 'Error' ? e.name : 'MinerError';
  return { message, type, status: null };
}

/** A serve frame the miner cannot run at all: the gateway sent something malformed for this buyer. */
export function unservableFrameError(reason: string): ResponseError {
  return { message: `the miner could not serve this request: ${reason}`, type: 'BadRequest', status: 400 };
}

/**
 * A serve frame beyond the total this miner declared. 503: the miner is not at fault for work
 * it never accepted, and neither is the buyer; the gateway may route the request elsewhere.
 */
export function overCapacityError(inflight: number, declared: number): ResponseError {
  return { message: `over capacity: ${inflight} requests in flight, ${declared} declared (max_inflight_total); this one was not started`, type: 'OverCapacity', status: 503 };
}

/** A serve frame that arrived on a leg being withdrawn: the engine's serve is sick, so it is not started there. */
export function serveUnhealthyError(cause: string): ResponseError {
  return { message: `withdrawn: serve unhealthy (${cause}); this request was not started`, type: 'ServeUnhealthy', status: 503 };
}
