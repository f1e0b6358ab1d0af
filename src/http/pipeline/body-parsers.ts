import type { IncomingHttpHeaders } from 'node:http';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { ServiceError } from '../../services/errors.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-depth.js';

/**
 * Whether the route takes a request without a body: it declares no body, or its body schema allows
 * none (Fastify checks a missing body as null: rotate-token's optional `{"grace_seconds"}`).
 */
function takesNoBody(request: FastifyRequest): boolean {
  const validate = request.getValidationFunction('body');
  return validate === undefined || validate(null) === true;
}

/** Whether the request says its body is empty (a chunked body says nothing until it is read). */
const announcedEmpty = (headers: IncomingHttpHeaders) =>
  headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0';

/**
 * The app's body parsers, for every route but those whose scope brings its own (Form A's, the menu file
 * import). An empty body sent to a route that takes none is no body, whatever its content type says:
 * clients that set `Content-Type: application/json` on every request, fetch's `text/plain` for a body
 * of '', curl -d ''. A route that needs a body still refuses an empty one, as Fastify does: 400 "The
 * request body is empty" for JSON, 415 for a type the route does not read.
 *
 * JSON is Fastify's own parser (prototype-poisoning checks included) behind a nesting limit: a deeper
 * body gets 400 invalid_request. Any other type is refused with 415 before a byte of it is read.
 */
export function parseBodies(app: FastifyInstance, max = MAX_JSON_DEPTH): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.length === 0 && takesNoBody(request)) {
      done(null, undefined);
      return;
    }
    if (text.length > max && nestedDeeperThan(text, max)) {
      done(
        new ServiceError('invalid_request', `The JSON body is nested more than ${max} levels deep.`),
        undefined,
      );
      return;
    }
    parseJson(request, text, done);
  });
  app.addContentTypeParser('*', (request, _payload, done) => {
    // An unknown path is answered 404 without its body read, as Fastify does when no parser matches.
    if (request.is404 || (announcedEmpty(request.headers) && takesNoBody(request))) {
      done(null, undefined);
      return;
    }
    done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), undefined);
  });
}
