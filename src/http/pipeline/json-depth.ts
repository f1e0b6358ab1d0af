import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../../services/errors.js';

/**
 * How deeply a JSON body may nest. The deepest real body is a menu (array, item, prices, price: 4)
 * or store hours (3); thousands of levels only serve to exhaust the stack of whatever walks the value
 * next (a serializer, a validator, an idempotency fingerprint), which would be a 500.
 */
export const MAX_JSON_DEPTH = 32;

/** Whether the JSON text opens more than `max` arrays or objects inside each other. O(n), no parsing. */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      // A backslash escapes the next character; a quote ends the string.
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x7b || char === 0x5b) {
      if (++depth > max) return true;
    } else if (char === 0x7d || char === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Replaces the app's JSON body parser with Fastify's own (prototype-poisoning checks included) behind
 * a nesting limit: deeper bodies get 400 invalid_request. Scopes with their own parsers (Form A) keep them.
 */
export function limitJsonDepth(app: FastifyInstance, max = MAX_JSON_DEPTH): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.length > max && nestedDeeperThan(text, max)) {
      done(
        new ServiceError('invalid_request', `The JSON body is nested more than ${max} levels deep.`),
        undefined,
      );
      return;
    }
    parseJson(request, text, done);
  });
}
