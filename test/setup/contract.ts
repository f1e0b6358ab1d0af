import { afterAll, afterEach } from 'vitest';
import { setup, takeContractViolations } from '../helpers/contract.js';

/**
 * The contract test (test/helpers/contract.ts): a test whose requests got an answer that does not
 * match the OpenAPI document fails here, with every mismatch listed.
 */
function failOnViolations(): void {
  const found = takeContractViolations();
  if (found.length === 0) return;
  const listed = found.slice(0, 20).map((line) => `  - ${line}`);
  const more = found.length > 20 ? [`  … and ${found.length - 20} more`] : [];
  throw new Error(
    `${found.length} answer(s) do not match the OpenAPI document (openapi.json):\n${[...listed, ...more].join('\n')}\n` +
      'Fix the route schema (src/forms, src/http) when the document is wrong, or the server when the answer is.',
  );
}

setup.installed = true;
afterEach(failOnViolations);
afterAll(failOnViolations);
