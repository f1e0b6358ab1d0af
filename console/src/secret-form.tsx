import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, messageOf } from './api.js';
import { ErrorText, SecretOnce } from './components.js';

/** A failure as an ApiError (anything else becomes one with its message), for its per-field messages. */
export function asApiError(problem: unknown): ApiError {
  return problem instanceof ApiError ? problem : new ApiError(0, 'unknown', messageOf(problem));
}

/**
 * The state of a form that creates something with a secret shown once (a token, a password, a key):
 * what it created (until Done), and why it failed (until the next submit).
 */
export function useSecretForm<Created>(create: () => Promise<Created>, onCreated: () => void) {
  const [created, setCreated] = useState<Created>();
  const [failure, setFailure] = useState<ApiError>();
  return {
    created,
    failure,
    /** Shows another failure of the page (the webhooks' enable switch) where the form shows its own. */
    fail: (problem: unknown) => setFailure(asApiError(problem)),
    done: () => setCreated(undefined),
    /** The server's message about one field, else the failure's own message. */
    messageAt: (field: string) => failure?.at(field) ?? failure?.message,
    submit: async (event: Event) => {
      event.preventDefault();
      setFailure(undefined);
      try {
        setCreated(await create());
        onCreated();
      } catch (problem) {
        setFailure(asApiError(problem));
      }
    },
  };
}

/**
 * The form until it has created something, then the secret (with Copy and Done), then the form again.
 * `submit` ends the form with its button and, after it, why the last submit failed: the server's message
 * about `errorAt.field` (at `errorAt.id`, which that field's input points at), else the failure's own.
 */
export function SecretForm<Created>(props: {
  state: ReturnType<typeof useSecretForm<Created>>;
  secret: (created: Created) => { label: string; value: string };
  class?: string;
  submit?: string;
  errorAt?: { field: string; id: string };
  children: ComponentChildren;
}) {
  const { created, done, submit, failure, messageAt } = props.state;
  if (created) {
    const secret = props.secret(created);
    return <SecretOnce label={secret.label} value={secret.value} onDone={done} />;
  }
  return (
    <form class={props.class} onSubmit={submit}>
      {props.children}
      {props.submit !== undefined && (
        <>
          <button type="submit">{props.submit}</button>
          <ErrorText
            id={props.errorAt?.id}
            message={props.errorAt ? messageAt(props.errorAt.field) : failure?.message}
          />
        </>
      )}
    </form>
  );
}
