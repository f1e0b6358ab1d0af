import ValidatorSelector from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's own schema compilers (Ajv for what a request carries, fast-json-stringify for answers),
 * each route's compiled the first time that route needs it rather than when the app starts.
 *
 * Compiling every route's schemas at start cost about 0.4 s of CPU per process (a third of a server's
 * start, measured with --cpu-prof): a process that answers a handful of routes, a worker restarted in
 * a rolling restart, and each of the hundreds of apps the test suite builds paid for all of them. A
 * route's first request pays its own compile instead (milliseconds). The compilers, their options and
 * the schemas they are given are Fastify's defaults, unchanged.
 */
export function lazySchemaCompilers(): NonNullable<FastifyServerOptions['schemaController']> {
  // One selector of each per app, as Fastify makes them: each keeps its compilers by external schemas.
  const validators = ValidatorSelector();
  const serializers = SerializerSelector();
  return {
    compilersFactory: {
      buildValidator: (externalSchemas, options) => {
        const compiler = validators(externalSchemas as never, options as never);
        return (route) => {
          let validate: ReturnType<typeof compiler> | undefined;
          // Fastify reads a failed validation's findings from the function's `errors`, as Ajv leaves them.
          const lazily = Object.assign(
            (data: unknown) => {
              validate ??= compiler(route as never);
              const valid = validate(data);
              lazily.errors = validate.errors;
              return valid;
            },
            { errors: undefined as ReturnType<typeof compiler>['errors'] },
          );
          // Typed as Ajv's function, whose other members (schema, schemaEnv) Fastify never reads.
          return lazily as unknown as ReturnType<typeof compiler>;
        };
      },
      buildSerializer: (externalSchemas, options) => {
        const compiler = serializers(externalSchemas, options as never);
        return (route) => {
          let serialize: ReturnType<typeof compiler> | undefined;
          return (data: unknown) => {
            serialize ??= compiler(route as never);
            return serialize(data);
          };
        };
      },
    },
  };
}
